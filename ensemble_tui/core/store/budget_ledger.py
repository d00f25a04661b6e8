"""The chat's budget as a ledger of reservations, shared by every process on one home.

Before a call is sent, its worst case is reserved in the same transaction that checks the cap
(BEGIN IMMEDIATE on History.sqlite3, so two processes cannot both see room for one call):

    stored cost of the chat + every reservation of the chat + this call <= cap.

A reservation counts at its worst case while its call is in flight and at what was billed once
it returned (`settle`). The rows of a turn are deleted by the transaction that adds the turn's
cost to the chat's stored cost (`release_turn`, called by `SessionStore.commit_turn`), so a cost
is never counted twice and never dropped.

A process that dies (SIGKILL, power loss) never commits its turn: its rows stay, and count for
ever, unsettled ones at their worst case, because the provider bills those calls anyway. They
block the chat only as money really spent would. Each row records the process's pid and start
time so a reader of the table can tell whose they were.

`LocalLedger` keeps the same arithmetic in memory for one turn, for core tests and callers
without a home.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import Protocol

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

PROCESS_STARTED = time.time()  # with the pid, names this process in the ledger


@dataclass(frozen=True)
class Reservation:
    """A call's claim on the budget: the output-token limit it may use and its worst case."""

    id: int
    output_tokens: int
    worst_usd: float
    in_memory: bool = False  # held by SqliteLedger's fallback, not in the database


class BudgetRefused(Exception):
    """The call does not fit under the cap; `spent` is the chat's cost, reservations included."""

    def __init__(self, spent: float) -> None:
        super().__init__(spent)
        self.spent = spent


class BudgetLedger(Protocol):
    """What a caller needs: reserve before a call, settle when it returned (or was abandoned)."""

    def reserve(self, spent_before: float, cap: float, size: Sizing) -> Reservation:
        """Reserve a call sized by `size` (raises BudgetRefused). `spent_before` is the chat's
        cost as the caller knows it; the larger of it and the stored cost is used."""
        ...

    def settle(self, reservation: Reservation, billed: float) -> None:
        """Record what the call was billed; the reservation counts that from now on."""
        ...


def _grant(spent: float, cap: float, size: Sizing) -> tuple[int, float]:
    sized = size(cap - spent)
    if sized is None or spent + sized[1] > cap:
        raise BudgetRefused(spent)
    return sized


@dataclass
class LocalLedger:
    """One turn's reservations in memory: the same rule, seen by this turn only."""

    _rows: dict[int, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def reserve(self, spent_before: float, cap: float, size: Sizing) -> Reservation:
        with self._lock:
            tokens, worst = _grant(spent_before + sum(self._rows.values()), cap, size)
            reservation = Reservation(len(self._rows) + 1, tokens, worst)
            self._rows[reservation.id] = worst
            return reservation

    def settle(self, reservation: Reservation, billed: float) -> None:
        with self._lock:
            self._rows[reservation.id] = billed


class Transactions(Protocol):
    """The archive's write transaction (RunArchive.writing)."""

    def writing(self, busy_timeout_s: float = 10.0) -> AbstractContextManager[sqlite3.Connection]: ...


@dataclass
class SqliteLedger:
    """One turn's reservations in the home's History.sqlite3, checked against every process's.

    When the database cannot be written (a full disk, a read-only home, a broken file), the turn
    goes on with its reservations in memory: the cap still holds for this process, and the
    turn's save then fails loudly, with its reply kept in a recovery file."""

    archive: Transactions
    session: str
    turn: str
    busy_timeout_s: float = 30.0
    _local: LocalLedger | None = None
    _stored_worst: float = 0.0  # what this turn reserved in the database before it failed

    def reserve(self, spent_before: float, cap: float, size: Sizing) -> Reservation:
        if self._local is None:
            try:
                with self.archive.writing(self.busy_timeout_s) as db:
                    spent = max(spent_before, stored_cost(db, self.session)) + outstanding(db, self.session)
                    tokens, worst = _grant(spent, cap, size)
                    cursor = db.execute(
                        "INSERT INTO budget_reservations (session, turn, pid, process_started, worst_usd) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (self.session, self.turn, os.getpid(), PROCESS_STARTED, worst),
                    )
                    self._stored_worst += worst
                    return Reservation(int(cursor.lastrowid or 0), tokens, worst)
            except (sqlite3.Error, OSError):
                self._local = LocalLedger()
        return replace(self._local.reserve(spent_before + self._stored_worst, cap, size), in_memory=True)

    def settle(self, reservation: Reservation, billed: float) -> None:
        if reservation.in_memory and self._local is not None:
            self._local.settle(reservation, billed)
            return
        try:
            with self.archive.writing(self.busy_timeout_s) as db:
                db.execute("UPDATE budget_reservations SET billed_usd = ? WHERE id = ?", (billed, reservation.id))
        except (sqlite3.Error, OSError):
            pass  # the row keeps its worst case, which only ever overstates what was spent


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


def release_turn(db: sqlite3.Connection, session: str, turn: str) -> None:
    """Inside the transaction that adds the turn's cost to the chat: its reservations go."""
    db.execute("DELETE FROM budget_reservations WHERE session = ? AND turn = ?", (session, turn))


def rows(db: sqlite3.Connection, session: str) -> Iterator[tuple[int, float, float | None]]:
    """(pid, worst, billed) of each reservation of a chat, for reports and tests."""
    yield from db.execute(
        "SELECT pid, worst_usd, billed_usd FROM budget_reservations WHERE session = ? ORDER BY id", (session,)
    )
