"""The full record of every run, in one SQLite database in the home folder.

The chat history and Markdown transcript hold only inputs and final replies; this archive
keeps everything else (every call, proposal, review and vote) for the run report, the
history screen and exports. SQLite's transactions make each write all-or-nothing.

Three writes a turn happen on the event loop that draws the app, so they must be cheap: one
connection is kept open (behind a lock, so any thread may use it) in WAL mode with
`synchronous=NORMAL`. A commit then appends to the write-ahead log without waiting for the
disk (about 0.1 ms instead of 2 ms for open, schema, journal and three fsyncs); a power cut may
lose the last commits, never corrupt the file, and Session.json, which restores the chat, is
still written with fsync. (A fresh connection per write would not do: in WAL mode, closing the
last connection checkpoints and syncs.)
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ensemble_tui.core.provider import Usage
from ensemble_tui.core.runlog import Artifact, CallRecord, TurnRecord
from ensemble_tui.core.session import SessionData, SessionSnapshot

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    first_question TEXT NOT NULL DEFAULT '',
    turns INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL DEFAULT (datetime('now')),
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session TEXT NOT NULL,
    started_at TEXT NOT NULL,
    mode TEXT NOT NULL,
    style TEXT NOT NULL,
    query TEXT NOT NULL,
    outcome TEXT NOT NULL,
    cost_usd REAL NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS turns_by_session ON turns (session, id);
"""


@dataclass(frozen=True)
class SessionSummary:
    id: str
    first_question: str
    turns: int
    cost_usd: float


@dataclass(frozen=True)
class StoredTurn:
    id: int
    record: TurnRecord


def record_from_json(data: dict[str, Any]) -> TurnRecord:
    """Rebuild a TurnRecord (with its calls and artifacts) from its stored JSON."""
    calls = [CallRecord(**{**call, "usage": Usage(**call.get("usage", {}))}) for call in data.get("calls", [])]
    artifacts = [Artifact(**artifact) for artifact in data.get("artifacts", [])]
    fields = {key: value for key, value in data.items() if key not in ("calls", "artifacts")}
    return TurnRecord(**fields, calls=calls, artifacts=artifacts)


class RunArchive:
    """The archive of one home folder; the connection opens on first use and is shared by
    every thread (calls are serialised by a lock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """The connection, inside one transaction: committed whole or rolled back."""
        with self._lock:
            connection = self._open()
            try:
                with connection:
                    yield connection
            except sqlite3.Error:
                self.close()  # a broken file or connection: start afresh next time
                raise

    def _open(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.executescript(SCHEMA)
            except sqlite3.Error:
                connection.close()
                raise
            self._connection = connection
        return self._connection

    def close(self) -> None:
        """Close the connection (it reopens on the next use); also done when the archive is
        garbage-collected or the process exits."""
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.close()
            except sqlite3.Error:
                pass

    def __del__(self) -> None:
        self.close()

    def save_session(self, snapshot: SessionSnapshot) -> None:
        """Store a session as one save rendered it (safe from any thread)."""
        with self._connect() as db:
            db.execute(
                "INSERT INTO sessions (id, first_question, turns, cost_usd, data, updated_at) "
                "VALUES (?, ?, ?, ?, ?, datetime('now')) ON CONFLICT(id) DO UPDATE SET "
                "first_question=excluded.first_question, turns=excluded.turns, cost_usd=excluded.cost_usd, "
                "data=excluded.data, updated_at=excluded.updated_at",
                (
                    snapshot.session_id,
                    snapshot.first_question,
                    snapshot.answered,
                    snapshot.cost_usd,
                    snapshot.session_text,
                ),
            )

    def save_turn(self, record: TurnRecord) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT INTO turns (session, started_at, mode, style, query, outcome, cost_usd, record) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.session,
                    record.started_at,
                    record.mode,
                    record.style,
                    record.query,
                    record.outcome,
                    record.turn_cost_usd,
                    json.dumps(record.to_json(), ensure_ascii=False),
                ),
            )

    def sessions(self) -> list[SessionSummary]:
        """Past sessions that have at least one question, newest first."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, first_question, turns, cost_usd FROM sessions WHERE first_question != '' ORDER BY id DESC"
            ).fetchall()
        return [SessionSummary(*row) for row in rows]

    def load_session(self, session_id: str) -> SessionData | None:
        with self._connect() as db:
            row = db.execute("SELECT data FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return SessionData.model_validate_json(row[0]) if row else None

    def turns(self, session_id: str) -> list[StoredTurn]:
        """Every run of a session in order, including failed and cancelled ones."""
        with self._connect() as db:
            rows = db.execute("SELECT id, record FROM turns WHERE session = ? ORDER BY id", (session_id,)).fetchall()
        return [StoredTurn(row_id, record_from_json(json.loads(record))) for row_id, record in rows]
