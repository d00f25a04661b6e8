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

Freezing after a turn follows a full collection, so no garbage is frozen (at the end of
start-up, with next to none, the app freezes at once: `freeze_now`); an object frozen while alive and
later dropped is freed by reference counting as usual, and only a frozen cycle that dies later
stays (until the app closes, when everything frozen is handed back: a test process runs many
apps), which is why freezing is kept to those few moments.
"""

from __future__ import annotations

import gc

# A turn that leaves more objects than this for the collector to track (an SDK import does;
# an ordinary turn leaves a few thousand) is followed by a collection and a freeze.
FREEZE_AFTER_OBJECTS = 50_000
# A generation-2 threshold no turn reaches: generation 2 is collected once the younger ones
# have been collected this many times.
NO_FULL_COLLECTION = 1 << 30


class CollectorPolicy:
    """Holds off full collections during turns and freezes long-lived objects between them.

    `enabled=False` makes every method do nothing: the collector is the process's, so only the
    app that owns the process (`ui.launch.build_app`) manages it; tests build many apps in one
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
        """Freeze what is alive now, without a full collection first: for the end of start-up,
        when imports and the first frames have left next to no garbage, and collecting the
        ~175K objects there are then (~75 ms) would stall the first keys typed. O(1)."""
        if self.enabled and not self.paused:
            gc.freeze()
            self._froze = True

    def release(self) -> None:
        """The app is closing: the collector's schedule is restored and what was frozen is
        handed back, so an app run inside a longer-lived process (the tests) leaves no frozen
        garbage behind."""
        self.resume()
        if self._froze:
            self._froze = False
            gc.unfreeze()
