"""The chat's budget as a ledger of reservations, shared by every process on one home.

Before a call is sent, its worst case is reserved in the same transaction that checks the cap
(BEGIN IMMEDIATE on History.sqlite3, so two processes cannot both see room for one call):

    stored cost of the chat + every reservation of the chat + this call <= cap.

A reservation counts at its worst case while its call is in flight and at what it cost once it
returned or was abandoned (`settle`: its bill; nothing if it was never sent; its input alone,
as an estimate, if it was cancelled after it was sent). The rows of a turn are deleted by the
transaction that adds the turn's cost to the chat's stored cost (`release_turn`, called by
`SessionStore.commit_turn`), so a cost is never counted twice and never dropped.

What counts is kept apart, so a refusal can say which part is in the way (`Tally`): money
spent (the stored cost and the settled rows), calls in flight (unsettled rows of a process that
still runs) and *unconfirmed* reservations (unsettled rows of a process that no longer runs: a
SIGKILL, a power loss). A call that fits with the money spent but not with calls in flight
waits for them (`ReservationsInFlight`, the caller polls); unconfirmed rows count at their worst
case until the user releases them (`release_unconfirmed`), because the provider may have billed
those calls. A process is named by its pid and its start time, so a reused pid is not mistaken
for the process that died.

`LocalLedger` keeps the same arithmetic in memory for one turn, for core tests and callers
without a home. `SqliteLedger` never falls back to memory: a reservation that cannot be
recorded refuses the call (`LedgerUnwritable`), since a cap kept in one process's memory does
not hold across processes.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol, runtime_checkable

LEDGER_SCHEMA = """
CREATE TABLE IF NOT EXISTS budget_reservations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session TEXT NOT NULL,
    turn TEXT NOT NULL,
    pid INTEGER NOT NULL,
    process_started REAL NOT NULL,
    worst_usd REAL NOT NULL,
    billed_usd REAL,
    created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE INDEX IF NOT EXISTS reservations_by_session ON budget_reservations (session, turn);
"""

# Given the money left under the cap, the call's output-token limit and its worst-case cost
# with that limit; None when the call cannot be afforded at all.
Sizing = Callable[[float], tuple[int, float] | None]

# Two readings of one process's start time (this one's, taken at import, and the kernel's) may
# differ by the time the interpreter took to start; a pid reused by another process starts later.
START_TOLERANCE_S = 5.0
_EPSILON = 1e-9


def process_start_time(pid: int) -> float | None:
    """When process `pid` started (seconds since the epoch), from the kernel where it says
    (Linux's /proc); None where it cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        boot = next(
            float(line.split()[1])
            for line in Path("/proc/stat").read_text(encoding="ascii").splitlines()
            if line.startswith("btime ")
        )
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22, counted after the name
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


@functools.cache
def start_of_this_process(pid: int) -> float:
    """When this process (`pid`, os.getpid()) started: with the pid, it names the process on its
    rows. Read per pid, not once at import: a process forked from this one (multiprocessing, a
    server that preloads the app) has a pid and a start of its own, and a start read by its
    parent would make every other process judge its reservations cut off."""
    return process_start_time(pid) or time.time()


def process_runs(pid: int, started_at: float) -> bool:
    """Whether the process that wrote a row (its pid and start time) still runs."""
    if pid == os.getpid():
        return abs(started_at - start_of_this_process(pid)) <= START_TOLERANCE_S
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: it exists
    except OSError:
        return False
    actual = process_start_time(pid)
    return actual is None or abs(actual - started_at) <= START_TOLERANCE_S


@dataclass(frozen=True)
class Reservation:
    """A call's claim on the budget: the output-token limit it may use and its worst case."""

    id: int
    output_tokens: int
    worst_usd: float
    unconfirmed: float = 0.0  # what a crashed turn of the chat still holds when this was granted
    unconfirmed_since: str | None = None


@dataclass(frozen=True)
class Tally:
    """What counts against a chat's cap, in parts: money spent (stored, and settled calls of
    turns not yet committed), calls in flight (of which some in other processes), and
    reservations of processes that no longer run (unconfirmed), with when the oldest was made."""

    spent: float = 0.0
    in_flight: float = 0.0
    in_flight_elsewhere: float = 0.0
    unconfirmed: float = 0.0
    unconfirmed_since: str | None = None  # local time, "05:31", of the oldest unconfirmed row

    @property
    def total(self) -> float:
        return self.spent + self.in_flight + self.unconfirmed


class BudgetRefused(Exception):
    """The call does not fit under the cap; `tally` says what is in the way."""

    def __init__(self, tally: Tally, cap: float) -> None:
        super().__init__(tally, cap)
        self.tally = tally
        self.cap = cap

    @property
    def spent(self) -> float:
        """Everything counted against the cap (kept for callers that want one figure)."""
        return self.tally.total


class ReservationsInFlight(BudgetRefused):
    """The call fits with the money spent (and unconfirmed reservations) but not with the calls
    still in flight: waiting for them to settle may make room."""


class LedgerUnwritable(Exception):
    """The reservation could not be recorded (a full disk, a read-only home): the call is refused."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BudgetLedger(Protocol):
    """What a caller needs: reserve before a call, settle when it returned (or was abandoned)."""

    def reserve(self, spent_before: float, cap: float, size: Sizing) -> Reservation:
        """Reserve a call sized by `size` (raises BudgetRefused). `spent_before` is the chat's
        cost as the caller knows it; the larger of it and the stored cost is used."""
        ...

    def settle(self, reservation: Reservation, billed: float) -> None:
        """Record what the call cost; the reservation counts that from now on."""
        ...


@dataclass(frozen=True)
class ReserveOp:
    """`reserve`'s arguments, for a ledger that applies several operations at once (`apply`)."""

    spent_before: float
    cap: float
    size: Sizing


@dataclass(frozen=True)
class SettleOp:
    """`settle`'s arguments, for `apply`."""

    reservation: Reservation
    billed: float


LedgerOp = ReserveOp | SettleOp
LedgerOutcome = Reservation | BudgetRefused | LedgerUnwritable | None  # what `apply` gives each op


@runtime_checkable
class BatchedLedger(Protocol):
    """A ledger that can apply several operations in one transaction (SqliteLedger.apply)."""

    def apply(self, ops: Sequence[LedgerOp]) -> list[LedgerOutcome]: ...


def _grant(tally: Tally, cap: float, size: Sizing) -> tuple[int, float]:
    """The call's size if it fits with everything counted; else why not (ReservationsInFlight
    when it would fit once the calls in flight settle, at no more than their worst case)."""
    sized = size(cap - tally.total)
    if sized is not None and tally.total + sized[1] <= cap + _EPSILON:
        return sized
    settled = tally.spent + tally.unconfirmed
    if tally.in_flight > 0 and (later := size(cap - settled)) is not None and settled + later[1] <= cap + _EPSILON:
        raise ReservationsInFlight(tally, cap)
    raise BudgetRefused(tally, cap)


@dataclass
class LocalLedger:
    """One turn's reservations in memory: the same rule, seen by this turn only."""

    _rows: dict[int, tuple[float, float | None]] = field(default_factory=dict)  # worst, billed
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def reserve(self, spent_before: float, cap: float, size: Sizing) -> Reservation:
        with self._lock:
            billed = sum(b for _w, b in self._rows.values() if b is not None)
            flying = sum(w for w, b in self._rows.values() if b is None)
            tokens, worst = _grant(Tally(spent=spent_before + billed, in_flight=flying), cap, size)
            reservation = Reservation(len(self._rows) + 1, tokens, worst)
            self._rows[reservation.id] = (worst, None)
            return reservation

    def settle(self, reservation: Reservation, billed: float) -> None:
        with self._lock:
            self._rows[reservation.id] = (reservation.worst_usd, billed)


class Transactions(Protocol):
    """The archive's write transaction (RunArchive.writing)."""

    def writing(self, busy_timeout_s: float = 10.0) -> AbstractContextManager[sqlite3.Connection]: ...


@dataclass
class SqliteLedger:
    """One turn's reservations in the home's History.sqlite3, checked against every process's.

    When the database cannot be written (a full disk, a read-only home, a broken file), the call
    is refused (LedgerUnwritable): a reservation only this process could see would let several
    processes each spend up to the cap."""

    archive: Transactions
    session: str
    turn: str
    busy_timeout_s: float = 30.0

    def reserve(self, spent_before: float, cap: float, size: Sizing) -> Reservation:
        try:
            with self.archive.writing(self.busy_timeout_s) as db:
                return self._reserve_in(db, spent_before, cap, size)
        except (sqlite3.Error, OSError) as exc:
            raise LedgerUnwritable(str(exc) or type(exc).__name__) from None

    def settle(self, reservation: Reservation, billed: float) -> None:
        try:
            with self.archive.writing(self.busy_timeout_s) as db:
                _settle_in(db, reservation, billed)
        except (sqlite3.Error, OSError):
            pass  # the row keeps its worst case, which only ever overstates what was spent

    def apply(self, ops: Sequence[LedgerOp]) -> list[LedgerOutcome]:
        """`ops` in their order in one transaction, so one write to disk stands for all of them
        (a wave's five calls reserved together, or settled together: each transaction syncs the
        database, a few milliseconds, and they ran one after another before the last request
        could leave). Each gets what `reserve` returns or raises, or None for a settle."""
        try:
            with self.archive.writing(self.busy_timeout_s) as db:
                outcomes: list[LedgerOutcome] = []
                for op in ops:
                    if isinstance(op, SettleOp):
                        _settle_in(db, op.reservation, op.billed)
                        outcomes.append(None)
                        continue
                    try:
                        outcomes.append(self._reserve_in(db, op.spent_before, op.cap, op.size))
                    except BudgetRefused as refused:
                        outcomes.append(refused)
                return outcomes
        except (sqlite3.Error, OSError) as exc:  # nothing was written: settles keep their worst case
            failed = LedgerUnwritable(str(exc) or type(exc).__name__)
            return [failed if isinstance(op, ReserveOp) else None for op in ops]

    def _reserve_in(self, db: sqlite3.Connection, spent_before: float, cap: float, size: Sizing) -> Reservation:
        counted = tally(db, self.session)
        stored = stored_cost(db, self.session)
        if spent_before > stored:  # this process knows of money the database does not hold yet
            counted = Tally(
                counted.spent + spent_before - stored,
                counted.in_flight,
                counted.in_flight_elsewhere,
                counted.unconfirmed,
                counted.unconfirmed_since,
            )
        tokens, worst = _grant(counted, cap, size)
        cursor = db.execute(
            "INSERT INTO budget_reservations (session, turn, pid, process_started, worst_usd) VALUES (?, ?, ?, ?, ?)",
            (self.session, self.turn, os.getpid(), start_of_this_process(os.getpid()), worst),
        )
        row = int(cursor.lastrowid or 0)
        return Reservation(row, tokens, worst, counted.unconfirmed, counted.unconfirmed_since)


def _settle_in(db: sqlite3.Connection, reservation: Reservation, billed: float) -> None:
    db.execute("UPDATE budget_reservations SET billed_usd = ? WHERE id = ?", (billed, reservation.id))


def stored_cost(db: sqlite3.Connection, session: str) -> float:
    row = db.execute("SELECT cost_usd FROM sessions WHERE id = ?", (session,)).fetchone()
    return float(row[0]) if row else 0.0


def outstanding(db: sqlite3.Connection, session: str) -> float:
    """What the chat's reservations not yet in its stored cost amount to: billed, or worst case."""
    row = db.execute(
        "SELECT COALESCE(SUM(COALESCE(billed_usd, worst_usd)), 0) FROM budget_reservations WHERE session = ?",
        (session,),
    ).fetchone()
    return float(row[0])


def _local_clock(created_at: str) -> str:
    """SQLite's UTC `datetime('now')` as the local "HH:MM" a user reads on screen."""
    try:
        moment = datetime.fromisoformat(created_at).replace(tzinfo=UTC)
    except ValueError:
        return created_at
    return moment.astimezone().strftime("%H:%M")


def tally(db: sqlite3.Connection, session: str) -> Tally:
    """The chat's cost in parts (see Tally): the stored cost and every reservation not yet in it."""
    spent = stored_cost(db, session)
    in_flight = elsewhere = unconfirmed = 0.0
    oldest: str | None = None
    query = (
        "SELECT pid, process_started, worst_usd, billed_usd, created_at FROM budget_reservations "
        "WHERE session = ? ORDER BY id"
    )
    for pid, started, worst, billed, created in db.execute(query, (session,)):
        if billed is not None:
            spent += float(billed)
        elif process_runs(int(pid), float(started)):
            in_flight += float(worst)
            if pid != os.getpid():
                elsewhere += float(worst)
        else:
            unconfirmed += float(worst)
            oldest = oldest or str(created)
    return Tally(spent, in_flight, elsewhere, unconfirmed, _local_clock(oldest) if oldest else None)


def release_turn(db: sqlite3.Connection, session: str, turn: str) -> None:
    """Inside the transaction that adds the turn's cost to the chat: its reservations go."""
    db.execute("DELETE FROM budget_reservations WHERE session = ? AND turn = ?", (session, turn))


def release_unconfirmed(db: sqlite3.Connection, session: str) -> float:
    """Drop the unsettled reservations of processes that no longer run; returns their sum.
    What those calls were billed, if anything, is then no longer counted (RELEASE_WARNING)."""
    dead = [
        (row_id, float(worst))
        for row_id, pid, started, worst in db.execute(
            "SELECT id, pid, process_started, worst_usd FROM budget_reservations "
            "WHERE session = ? AND billed_usd IS NULL",
            (session,),
        )
        if not process_runs(int(pid), float(started))
    ]
    db.executemany("DELETE FROM budget_reservations WHERE id = ?", [(row_id,) for row_id, _ in dead])
    return sum(worst for _, worst in dead)


RELEASE_WARNING = (
    "Released {amount} reserved by calls of a turn that was cut off: if the provider billed them, "
    "this chat now shows less than was spent (check the provider's usage page)."
)


def rows(db: sqlite3.Connection, session: str) -> Iterator[tuple[int, float, float | None]]:
    """(pid, worst, billed) of each reservation of a chat, for reports and tests."""
    yield from db.execute(
        "SELECT pid, worst_usd, billed_usd FROM budget_reservations WHERE session = ? ORDER BY id", (session,)
    )


def release(archive: Transactions, session: str) -> str | None:
    """Release a chat's unconfirmed reservations; the one-line warning of what that means, or
    None when there was nothing to release."""
    with archive.writing() as db:
        freed = release_unconfirmed(db, session)
    return RELEASE_WARNING.format(amount=f"${freed:.2f}") if freed > 0 else None
