"""A turn's reservations and settlements, written to the ledger together when they come together.

Each ledger transaction in History.sqlite3 syncs the database to disk (a few milliseconds, more
on a busy disk), and they run one after another. A wave of five proposers reserved five times
before its last request could leave, and its answers settled five times before the next wave:
about ten syncs a wave on the turn's path (bench row 1). The desk queues what the turn's calls
ask of the ledger and writes each batch in one transaction (`SqliteLedger.apply`): the requests
made in the same step of the event loop go together, and those made while a batch is being
written go in the next one. Each call gets its own outcome, as from `reserve` or `settle`. A
ledger that cannot batch (the in-memory one) gets the operations one by one.
"""

from __future__ import annotations

import asyncio

from ensemble_tui.core.store.budget_ledger import (
    BatchedLedger,
    BudgetLedger,
    BudgetRefused,
    LedgerOp,
    LedgerOutcome,
    LedgerUnwritable,
    Reservation,
    ReserveOp,
    SettleOp,
)


class LedgerDesk:
    """Queues ledger operations and applies them in batches, in a worker thread."""

    def __init__(self, ledger: BudgetLedger) -> None:
        self.ledger = ledger
        self._queue: list[tuple[LedgerOp, asyncio.Future[LedgerOutcome]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def reserve(self, op: ReserveOp) -> Reservation:
        """`ledger.reserve`, batched: raises BudgetRefused (or ReservationsInFlight) or LedgerUnwritable."""
        outcome = await self._submit(op)
        if isinstance(outcome, Exception):
            raise outcome
        assert outcome is not None
        return outcome

    async def settle(self, op: SettleOp) -> None:
        """`ledger.settle`, batched."""
        await self._submit(op)

    async def _submit(self, op: LedgerOp) -> LedgerOutcome:
        done: asyncio.Future[LedgerOutcome] = asyncio.get_running_loop().create_future()
        self._queue.append((op, done))
        if self._writer is None:  # a task: it starts at the loop's next step, so this step's ops join
            self._writer = asyncio.create_task(self._write())
        return await done

    async def _write(self) -> None:
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                try:
                    outcomes = await asyncio.to_thread(self._apply, [op for op, _ in batch])
                except BaseException as exc:  # a bug, or the loop closing: every waiter hears it
                    for _, done in batch:
                        if not done.done():
                            done.set_exception(exc)
                    raise
                for (_, done), outcome in zip(batch, outcomes, strict=True):
                    if not done.done():
                        done.set_result(outcome)
        finally:
            self._writer = None

    def _apply(self, ops: list[LedgerOp]) -> list[LedgerOutcome]:
        """In the worker thread: one transaction where the ledger can, else one operation each."""
        if isinstance(self.ledger, BatchedLedger):
            return self.ledger.apply(ops)
        outcomes: list[LedgerOutcome] = []
        for op in ops:
            if isinstance(op, SettleOp):
                self.ledger.settle(op.reservation, op.billed)
                outcomes.append(None)
                continue
            try:
                outcomes.append(self.ledger.reserve(op.spent_before, op.cap, op.size))
            except (BudgetRefused, LedgerUnwritable) as refused:
                outcomes.append(refused)
        return outcomes
