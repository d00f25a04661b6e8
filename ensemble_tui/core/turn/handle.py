"""One turn in flight, as the engine hands it out: its id, its phase, its events and `cancel()`.

The turn runs in its own task and talks to its one consumer through a queue, so cancelling it
(`cancel`, a newer turn, or the consumer closing `events`) stops its calls at once. Its phase is
the one answer to "is a turn running?": RUNNING until the reply is stored, MAPPING while a claim
map that was still out at the reply is drawn (the reply is shown; the map follows as
ClaimsMapped or ClaimsLeftOut), DONE once the task has ended.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import AsyncGenerator, Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: the status line imports TurnPhase before the first frame
    from ensemble_tui.core.turn.events import TurnEvent

_END = object()


class TurnPhase(enum.Enum):
    RUNNING = "running"  # working toward the reply
    MAPPING = "mapping"  # the reply is stored and announced; its claim map is still being drawn
    DONE = "done"  # the task has ended: every event is in the queue


class TurnHandle:
    """A turn started by `Engine.start`. `events` is read by one consumer; closing it cancels
    the turn. A handle superseded by a newer turn stops yielding: its consumer has moved on."""

    def __init__(self, turn_id: int) -> None:
        self.id = turn_id
        self.phase = TurnPhase.RUNNING
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._superseded = False
        self.events: AsyncGenerator[TurnEvent] = self._drain()

    def begin(self, body: Callable[[TurnHandle], Coroutine[Any, Any, None]]) -> None:
        """Run the turn's `body` (it emits through `emit`) in a task of its own."""
        self._task = asyncio.create_task(body(self))
        self._task.add_done_callback(self._ended)

    def emit(self, event: TurnEvent) -> None:
        self._queue.put_nowait(event)

    def cancel(self) -> None:
        """Stop the turn: it rolls back (TurnRolledBack), or, MAPPING, drops its map and keeps its cost."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def supersede(self) -> None:
        """A newer turn starts: this one is cancelled and yields nothing more."""
        self._superseded = True
        self.cancel()

    async def wait(self) -> None:
        """Until the turn's task has ended (rolled back, failed or done), whatever its outcome."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    def _ended(self, _task: object) -> None:
        self.phase = TurnPhase.DONE
        self._queue.put_nowait(_END)

    async def _drain(self) -> AsyncGenerator[TurnEvent]:
        try:
            while (event := await self._queue.get()) is not _END and not self._superseded:
                yield event  # type: ignore[misc]
        finally:
            self.cancel()
            await self.wait()
