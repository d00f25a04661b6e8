"""When Python's cyclic garbage collector may do a full collection: never in the middle of a turn.

A full (generation 2) collection walks every object the collector tracks and holds the GIL
while it does, so it stops drawing, typing and the provider loop alike. At start-up that is
~175K objects (Textual, Rich, pydantic, the session); the first turn with a provider imports
its SDK and adds tens of thousands more (~200K for the three built-ins). Measured in bench row 4,
full collections of 75-310 ms fell in the middle of turns, each one a stalled keypress.

So, with the app as the owner of the process:
- while a turn runs, only the young generations are collected (cheap: they hold what was made
  since the last collection); full collections wait until the app has been idle for a moment
  after the turn (the app calls `resume()` then). Reference counting frees almost everything at
  once anyway; only garbage in long-lived cycles waits;
- objects that live as long as the process are collected once and then frozen (`gc.freeze()`:
  left out of every later collection) at quiet moments: when start-up is done, and shortly
  after a turn that left many new long-lived objects behind (an SDK's first use), if the app
  is still idle then. Later full collections only walk what is not frozen.

Start-up itself runs with no automatic collection at all (`start_up_hold`, which the command
line holds around importing and running the app): importing Textual, pydantic and the app
and building the first screen make ~140K objects, and the collections they set off cost
30-45 ms of the time to the first frame (one a full collection in the middle of the imports).
Reference counting still frees all but the garbage in cycles, ~10K objects (~1 MB) by the end
of start-up.

Freezing after a turn follows a full collection, so no garbage is frozen. At the end of start-up
the app freezes at once (`freeze_now`), without the full collection (~100 ms by then) that would
stall the first keys typed: the start-up cycles above are frozen with the rest. An object frozen
while alive and later dropped is freed by reference counting as usual, and only a frozen cycle
that dies later stays (until the app closes, when everything frozen is handed back: a test
process runs many apps), which is why freezing is kept to those few moments.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# A turn that leaves more objects than this for the collector to track (an SDK import does;
# an ordinary turn leaves a few thousand) is followed by a collection and a freeze.
FREEZE_AFTER_OBJECTS = 50_000
# A generation-2 threshold no turn reaches: generation 2 is collected once the younger ones
# have been collected this many times.
NO_FULL_COLLECTION = 1 << 30


@contextmanager
def start_up_hold() -> Iterator[None]:
    """No automatic collection until the app's start-up is over, when `CollectorPolicy.freeze_now`
    turns it back on; on leaving, it is on again whatever happened. For the owner of the process
    only: the command line, around importing and running the app."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class CollectorPolicy:
    """Holds off full collections during turns and freezes long-lived objects between them.

    `enabled=False` makes every method do nothing: the collector is the process's, so only the
    app that owns the process (`bootstrap.build_app`) manages it; tests build many apps in one
    process and leave it alone.
    """

    def __init__(self, *, enabled: bool = True, freeze_after: int = FREEZE_AFTER_OBJECTS) -> None:
        self.enabled = enabled
        self.freeze_after = freeze_after
        self._saved_threshold: tuple[int, int, int] | None = None  # set while paused
        self._froze = False

    @property
    def paused(self) -> bool:
        return self._saved_threshold is not None

    def pause(self) -> None:
        """A turn starts: young collections go on, full ones wait for `resume()`."""
        if self.enabled and self._saved_threshold is None:
            young, middle, full = self._saved_threshold = gc.get_threshold()
            gc.set_threshold(young, middle, NO_FULL_COLLECTION)

    def resume(self) -> None:
        """The app is idle after a turn (or closing): full collections may run again."""
        if self._saved_threshold is not None:
            gc.set_threshold(*self._saved_threshold)
            self._saved_threshold = None

    def settle(self, threshold: int | None = None) -> bool:
        """Collect and freeze if more than `threshold` (default `freeze_after`) objects are
        tracked outside the frozen set; returns whether it did. `gc.get_objects()` leaves
        frozen objects out, so this costs a few milliseconds once the long-lived ones are."""
        limit = self.freeze_after if threshold is None else threshold
        if not self.enabled or self.paused or len(gc.get_objects()) <= limit:
            return False
        gc.collect()
        gc.freeze()
        self._froze = True
        return True

    def freeze_now(self) -> None:
        """The end of start-up: freeze what is alive now, without a full collection first (see
        the module's docstring), then let automatic collection run again (`start_up_hold`).
        O(1); a turn already under way (paused) leaves the freeze to the next `settle`."""
        if not self.enabled:
            return
        if not self.paused:
            gc.freeze()
            self._froze = True
        gc.enable()

    def release(self) -> None:
        """The app is closing: the collector's schedule is restored and what was frozen is
        handed back, so an app run inside a longer-lived process (the tests) leaves no frozen
        garbage behind; automatic collection is on again even if start-up never finished."""
        self.resume()
        if self.enabled:
            gc.enable()
        if self._froze:
            self._froze = False
            gc.unfreeze()
