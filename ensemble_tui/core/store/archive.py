"""The full record of every run, and the chat's history, in one SQLite database in the home folder.

The run archive keeps everything beyond the chat (every call, proposal, review and vote) for
the run report, the history screen and exports. It also holds each session's lists (its
messages and resubmissions) as one row per item, so a save adds or removes only the items that
changed: a turn costs the same in a chat of 50 turns as in one of 1000 (bench row 3).
`Session.json` keeps the rest of the current session and says how many items it has here.

A turn's save runs in a worker thread, so one connection is kept open (behind a lock, so any
thread may use it) in WAL mode with `synchronous=FULL`. A commit appends to the write-ahead
log and syncs it once (about 1 ms), and SQLite's transactions make each write all-or-nothing,
whatever moment the process dies. (A fresh connection per write would not do: in WAL mode,
closing the last connection checkpoints and syncs.) Each session row has a `revision`, moved
on by every save of its lists, so a process can tell that another one added turns.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ensemble_tui.core.chat.runlog import Artifact, CallRecord, TurnRecord
from ensemble_tui.core.provider import Usage
from ensemble_tui.core.store import search_index
from ensemble_tui.core.store.atomic import aside_path
from ensemble_tui.core.store.budget_ledger import LEDGER_SCHEMA
from ensemble_tui.core.store.search_index import SEARCH_SCHEMA, Hit, Progress
from ensemble_tui.core.store.upload_registry import UPLOADS_SCHEMA

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    first_question TEXT NOT NULL DEFAULT '',
    turns INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL DEFAULT (datetime('now')),
    data TEXT NOT NULL,
    revision INTEGER NOT NULL DEFAULT 0,
    title TEXT NOT NULL DEFAULT ''
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
CREATE TABLE IF NOT EXISTS session_items (
    session TEXT NOT NULL,
    list TEXT NOT NULL,
    position INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session, list, position)
) WITHOUT ROWID;
"""


@dataclass(frozen=True)
class SessionSummary:
    id: str
    first_question: str
    turns: int
    cost_usd: float
    title: str = ""  # the name the user gave the chat in the history; "" for none
    parent: str | None = None  # a branch's parent chat (core/store/fork.py), None for a chat of its own
    fork_turn: int | None = None  # a branch's fork point: how many of its parent's questions it starts with

    @property
    def name(self) -> str:
        """What the history shows for the chat: its given name, else its first question."""
        return self.title or self.first_question


@dataclass(frozen=True)
class SessionRow:
    """A session's row in the archive: what the history screen lists, and the session's JSON
    without its lists (`head`), whose items are stored one per row."""

    id: str
    first_question: str
    turns: int
    cost_usd: float
    head: str


@dataclass(frozen=True)
class ListChange:
    """How one of a session's lists changed since it was stored: its first `keep` items stay,
    the rest go, and `added` (each item's JSON) follow them."""

    keep: int
    added: list[str]


@dataclass
class StoredSession:
    """A session as the archive holds it: its row's JSON and each list's items' JSON, in order.
    A session stored before its lists had rows of their own carries them in `head`."""

    head: str
    items: dict[str, list[str]] = field(default_factory=dict)
    revision: int = 0


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


# A branch's parent and fork point, as columns the history lists them by. They are computed by
# SQLite from the session's own JSON (its `parent_id` and `fork_turn` fields), never written
# apart from it: the session's save is their one write. Added to an existing home's table as
# it is opened (a virtual generated column can be added in place, without rewriting rows).
BRANCH_COLUMNS = {
    "parent": "TEXT GENERATED ALWAYS AS (json_extract(data, '$.parent_id')) VIRTUAL",
    "fork_turn": "INTEGER GENERATED ALWAYS AS (json_extract(data, '$.fork_turn')) VIRTUAL",
}
# A virtual column is computed each time it is read: listing every chat's parent would parse
# every chat's JSON (~4.5 KB each in a real home: ~16 ms of the history's 1,000-chat listing).
# This index computes them once, as a session is saved, and holds the branches alone in its
# first entries (a chat of its own has no parent), so the history reads the branches from it.
BRANCH_INDEX = "CREATE INDEX IF NOT EXISTS sessions_branches ON sessions(parent, fork_turn, id)"


def add_branch_columns(connection: sqlite3.Connection) -> None:
    """Add the branch columns the sessions table lacks (table_xinfo: table_info leaves
    generated columns out), and their index."""
    columns = {row[1] for row in connection.execute("PRAGMA table_xinfo(sessions)")}
    for name, definition in BRANCH_COLUMNS.items():
        if name not in columns:
            connection.execute(f"ALTER TABLE sessions ADD COLUMN {name} {definition}")
    connection.execute(BRANCH_INDEX)


def _create_private(path: Path) -> None:
    """Create the database file for the user alone (0600) before SQLite opens it: SQLite gives
    its -wal and -shm files the database file's own mode, so they are private too. An existing
    file is left as it is (the start-up tightens it, core/store/home.make_private)."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:  # it exists (or cannot be made: sqlite3.connect then says why)
        return
    os.close(descriptor)


class RunArchive:
    """The archive of one home folder; the connection opens on first use and is shared by
    every thread (calls are serialised by a lock)."""

    def __init__(self, path: Path, *, create: bool = True) -> None:
        self.path = path
        self.create = create  # False (history, export): a missing file reads as empty, none is made
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

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """One transaction on the shared connection, for tables other modules keep here
        (upload_registry)."""
        return self._connect()

    def _open(self) -> sqlite3.Connection:
        if self._connection is None and not self.create and not self.path.exists():
            self._connection = self._empty()
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            _create_private(self.path)
            connection = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=FULL")
                connection.executescript(SCHEMA + UPLOADS_SCHEMA + LEDGER_SCHEMA + SEARCH_SCHEMA)
                columns = {row[1] for row in connection.execute("PRAGMA table_info(sessions)")}
                if "revision" not in columns:  # a database made before sessions had revisions
                    connection.execute("ALTER TABLE sessions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0")
                if "title" not in columns:  # a database made before chats could be renamed
                    connection.execute("ALTER TABLE sessions ADD COLUMN title TEXT NOT NULL DEFAULT ''")
                if (
                    not search_index.is_built(connection)
                    and not connection.execute("SELECT 1 FROM sessions LIMIT 1").fetchone()
                ):
                    with connection:  # a new archive: its index is whole from the start
                        search_index.mark_built(connection)
                add_branch_columns(connection)
            except sqlite3.OperationalError as exc:
                connection.close()
                if not self.path.is_file() or "locked" in str(exc):
                    raise
                connection = self._read_only()  # a read-only home: it still reads; a write fails
            except sqlite3.Error:
                connection.close()
                raise
            self._connection = connection
        return self._connection

    def _read_only(self) -> sqlite3.Connection:
        """The file opened for reading only, where it cannot be written (a read-only folder or
        file system): as is, else as an immutable file (its log, which the last writer folded
        in when it closed, cannot be read there anyway). Raises sqlite3.Error."""
        for options in ("mode=ro", "immutable=1"):
            connection = sqlite3.connect(
                f"{self.path.resolve().as_uri()}?{options}", uri=True, timeout=10, check_same_thread=False
            )
            try:
                connection.execute("SELECT count(*) FROM sessions").fetchone()
            except sqlite3.Error:
                connection.close()
                continue
            return connection
        raise sqlite3.OperationalError(f"unable to open {self.path.name} even for reading")

    @staticmethod
    def _empty() -> sqlite3.Connection:
        """An empty archive in memory, for a command that only reads a home without one."""
        connection = sqlite3.connect(":memory:", check_same_thread=False)
        connection.executescript(SCHEMA + UPLOADS_SCHEMA + LEDGER_SCHEMA + SEARCH_SCHEMA)
        add_branch_columns(connection)
        search_index.mark_built(connection)
        return connection

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

    @contextmanager
    def writing(self, busy_timeout_s: float = 10.0) -> Iterator[sqlite3.Connection]:
        """One write transaction that holds the database's write lock from its start (BEGIN
        IMMEDIATE), so what it reads stays true until it commits: another process's save
        waits for it, up to `busy_timeout_s` (then sqlite3.OperationalError, "locked")."""
        with self._connect() as db:
            db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
            db.execute("BEGIN IMMEDIATE")
            yield db

    def save_session(self, row: SessionRow, changes: Mapping[str, ListChange], *, db: sqlite3.Connection) -> int:
        """Store a session's row and bring its lists' items in line, inside `db`'s transaction
        (see `writing`); returns the session's new revision."""
        found = db.execute("SELECT revision FROM sessions WHERE id = ?", (row.id,)).fetchone()
        revision = (found[0] if found else 0) + (1 if changes else 0)
        db.execute(
            "INSERT INTO sessions (id, first_question, turns, cost_usd, data, updated_at, revision) "
            "VALUES (?, ?, ?, ?, ?, datetime('now'), ?) ON CONFLICT(id) DO UPDATE SET "
            "first_question=excluded.first_question, turns=excluded.turns, cost_usd=excluded.cost_usd, "
            "data=excluded.data, updated_at=excluded.updated_at, revision=excluded.revision",
            (row.id, row.first_question, row.turns, row.cost_usd, row.head, revision),
        )
        for name, change in changes.items():
            db.execute(
                "DELETE FROM session_items WHERE session = ? AND list = ? AND position >= ?",
                (row.id, name, change.keep),
            )
            db.executemany(
                "INSERT INTO session_items (session, list, position, data) VALUES (?, ?, ?, ?)",
                [(row.id, name, change.keep + offset, text) for offset, text in enumerate(change.added)],
            )
            if name == "history":
                search_index.index_messages(db, row.id, change.keep, change.added)
        return revision

    def save_turn(self, record: TurnRecord, *, db: sqlite3.Connection | None = None) -> int:
        """Add a run's full record, inside `db`'s transaction (see `writing`) if one is given;
        returns its row's id (for `amend_turn`)."""
        if db is None:
            with self._connect() as connection:
                return self.save_turn(record, db=connection)
        cursor = db.execute(
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
        turn_id = int(cursor.lastrowid or 0)
        search_index.index_turn(db, record.session, turn_id, record.started_at, record.artifacts)
        return turn_id

    def amend_turn(self, turn_id: int, record: TurnRecord, *, db: sqlite3.Connection | None = None) -> None:
        """Rewrite a stored run's record with what the run added after its commit (a claim map
        drawn after the reply, and what its call cost), inside `db`'s transaction if one is given."""
        if db is None:
            with self.writing() as connection:
                return self.amend_turn(turn_id, record, db=connection)
        db.execute(
            "UPDATE turns SET outcome = ?, cost_usd = ?, record = ? WHERE id = ?",
            (record.outcome, record.turn_cost_usd, json.dumps(record.to_json(), ensure_ascii=False), turn_id),
        )
        search_index.index_turn(db, record.session, turn_id, record.started_at, record.artifacts)

    def revision(self, session_id: str) -> int | None:
        """How many times the session's lists were saved (None: no such session)."""
        with self._connect() as db:
            row = db.execute("SELECT revision FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return None if row is None else row[0]

    def sessions(self) -> list[SessionSummary]:
        """Past sessions that have at least one question, newest first. The branches' parents
        and fork points come from their index (BRANCH_INDEX: `parent >= ''` is every text
        parent, and reads the index alone), not from every chat's JSON."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, first_question, turns, cost_usd, title FROM sessions "
                "WHERE first_question != '' "
                "ORDER BY id DESC"
            ).fetchall()
            branches = {
                session: (parent, fork_turn)
                for parent, fork_turn, session in db.execute(
                    "SELECT parent, fork_turn, id FROM sessions WHERE parent >= ''"
                )
            }
        return [SessionSummary(*row, *branches.get(row[0], (None, None))) for row in rows]

    def rename_session(self, session_id: str, title: str) -> bool:
        """Give a chat a name in the history ("" gives it back its first question); False if
        there is no such chat."""
        with self.writing() as db:
            changed = db.execute("UPDATE sessions SET title = ? WHERE id = ?", (title.strip(), session_id)).rowcount
            if changed:
                search_index.index_name(db, session_id, title.strip())
        return changed > 0

    def delete_session(self, session_id: str) -> str | None:
        """Remove a chat, its items and its runs in one transaction; returns the PDF it had
        selected ("" for none), or None if there was no such chat."""
        with self.writing() as db:
            row = db.execute("SELECT data FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                return None
            db.execute("DELETE FROM session_items WHERE session = ?", (session_id,))
            db.execute("DELETE FROM turns WHERE session = ?", (session_id,))
            db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            search_index.forget_session(db, session_id)
        try:
            pdf = json.loads(row[0]).get("pdf_path")
        except (ValueError, AttributeError):
            pdf = None
        return pdf if isinstance(pdf, str) else ""

    def load_session(self, session_id: str, *, db: sqlite3.Connection | None = None) -> StoredSession | None:
        """A session's row and its lists' items, in order; None if the archive has no such session.
        Inside `db`'s transaction if one is given."""
        if db is None:
            with self._connect() as connection:
                return self.load_session(session_id, db=connection)
        row = db.execute("SELECT data, revision FROM sessions WHERE id = ?", (session_id,)).fetchone()
        items = db.execute(
            "SELECT list, data FROM session_items WHERE session = ? ORDER BY list, position", (session_id,)
        ).fetchall()
        if row is None:
            return None
        stored = StoredSession(row[0], revision=row[1])
        for name, text in items:
            stored.items.setdefault(name, []).append(text)
        return stored

    def set_aside(self) -> Path:
        """Move an unreadable database out of the way (a fresh one is made on the next use);
        returns where it went."""
        self.close()
        aside = aside_path(self.path)
        self.path.replace(aside)
        for suffix in ("-wal", "-shm"):  # its log means nothing without it
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        return aside

    def turns(self, session_id: str) -> list[StoredTurn]:
        """Every run of a session in order, including failed and cancelled ones."""
        with self._connect() as db:
            rows = db.execute("SELECT id, record FROM turns WHERE session = ? ORDER BY id", (session_id,)).fetchall()
        return [StoredTurn(row_id, record_from_json(json.loads(record))) for row_id, record in rows]

    # ----- search (core/store/search_index.py) -------------------------------------------------

    def search_index_ready(self) -> bool:
        """Whether every chat is in the search index (False: `build_search_index` first)."""
        with self._connect() as db:
            return search_index.is_built(db)

    def build_search_index(self, progress: Progress | None = None) -> int:
        """Index a home made before the search index, once (nothing is done if it is whole);
        returns how many chats were indexed. `progress(done, total)` is called after each chat."""
        with self.writing() as db:
            if search_index.is_built(db):
                return 0
            return search_index.build(db, progress)

    def search(self, query: str, limit: int = 20) -> list[Hit]:
        """The entries a user's query finds (see search_index.search)."""
        with self._connect() as db:
            return search_index.search(db, query, limit)
