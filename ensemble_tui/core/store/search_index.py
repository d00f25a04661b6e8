"""Search across every chat: a full-text index (SQLite FTS5) in the archive's database.

What is indexed: every question and final reply of every chat (by their place in the chat's
messages), the proposals and the claim texts of each run (marked as such), and the name a user
gave a chat. Each entry is a row of `search_entries` (whose chat, what kind, where); its
normalised text (search_text.py) is the row of the FTS5 table `search_text` with the same rowid,
tokenised with accents and case ignored.

The archive updates the index inside the transaction that saves a turn (archive.py calls the
functions here with its `db`), so a saved turn is always findable and a deleted chat leaves it.
A home made before the index existed is indexed once, whole, in one transaction (`build`);
until then the hooks write nothing (`is_built`), so the build never finds half of it done.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from ensemble_tui.core.store.search_text import Query, parse_query, searchable

Kind = Literal["question", "reply", "proposal", "claim", "name"]

SEARCH_SCHEMA_TABLES = """
CREATE TABLE IF NOT EXISTS search_entries (
    id INTEGER PRIMARY KEY,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    position INTEGER NOT NULL,
    turn INTEGER,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS search_entries_by_session ON search_entries (session, position);
CREATE INDEX IF NOT EXISTS search_entries_by_turn ON search_entries (turn) WHERE turn IS NOT NULL;
CREATE TABLE IF NOT EXISTS search_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
TEXT_SCHEMA = """CREATE VIRTUAL TABLE IF NOT EXISTS search_text USING fts5 (
    body, tokenize = 'unicode61 remove_diacritics 2'
)"""
SEARCH_SCHEMA = SEARCH_SCHEMA_TABLES + TEXT_SCHEMA + ";\n"
VERSION = "2"  # a home indexed by another version is indexed again (2: snippets without stray spaces)
NAME_POSITION = -1  # a chat's name is no message of it
# Markers around a match in a snippet: control characters no indexed text holds (stripped on
# the way in), turned into highlighting by whoever shows the snippet.
MATCH_START, MATCH_END = "\x02", "\x03"
SNIPPET_WORDS = 14
RANKED = 1000  # a query ranks at most this many entries, the newest (see `search`)
TIES = 10

Entry = tuple[str, str, int, int | None, str, str]  # session, kind, position, turn, at, text
Progress = Callable[[int, int], None]  # chats indexed so far, of how many


@dataclass(frozen=True)
class Hit:
    """One entry a query found. `position` is its message's place in the chat's messages (for a
    proposal or claim, its run's question's; NAME_POSITION for the chat's name); `snippet` holds
    the matched words between MATCH_START and MATCH_END; `chat_name` is the chat's name now."""

    session: str
    kind: Kind
    position: int
    at: str
    snippet: str
    chat_name: str

    def to_json(self) -> dict[str, Any]:
        plain = self.snippet.replace(MATCH_START, "").replace(MATCH_END, "")
        return {
            "chat": self.session,
            "date": self.at,
            "kind": self.kind,
            "message": self.position,
            "chat_name": self.chat_name,
            "snippet": plain,
            "matches": list(match_spans(self.snippet)),
        }


def match_spans(snippet: str) -> Iterable[tuple[int, int]]:
    """The [start, end) spans of the matches in the snippet with its markers taken out."""
    offset, start = 0, None
    for index, char in enumerate(snippet):
        if char == MATCH_START:
            start = index - offset
            offset += 1
        elif char == MATCH_END:
            offset += 1
            if start is not None:
                yield (start, index - offset + 1)
                start = None


def _now() -> str:
    return datetime.now().isoformat(timespec="seconds")


def _clean(text: str) -> str:
    return searchable(text.replace(MATCH_START, " ").replace(MATCH_END, " "))


def _add(db: sqlite3.Connection, rows: Sequence[Entry]) -> None:
    """Index (session, kind, position, turn, at, text) rows, numbered after the newest entry."""
    rows = [row for row in rows if row[5].strip()]
    if not rows:
        return
    first = (db.execute("SELECT max(id) FROM search_entries").fetchone()[0] or 0) + 1
    db.executemany(
        "INSERT INTO search_entries (id, session, kind, position, turn, at) VALUES (?, ?, ?, ?, ?, ?)",
        [(first + offset, *row[:5]) for offset, row in enumerate(rows)],
    )
    db.executemany(
        "INSERT INTO search_text (rowid, body) VALUES (?, ?)",
        [(first + offset, _clean(row[5])) for offset, row in enumerate(rows)],
    )


def _remove(db: sqlite3.Connection, where: str, parameters: tuple[Any, ...]) -> None:
    ids = [row[0] for row in db.execute(f"SELECT id FROM search_entries WHERE {where}", parameters)]
    if ids:
        db.executemany("DELETE FROM search_text WHERE rowid = ?", [(i,) for i in ids])
        db.executemany("DELETE FROM search_entries WHERE id = ?", [(i,) for i in ids])


def is_built(db: sqlite3.Connection) -> bool:
    """Whether this home's index is whole (built, or made with the archive)."""
    row = db.execute("SELECT value FROM search_meta WHERE key = 'version'").fetchone()
    return row is not None and row[0] == VERSION


def mark_built(db: sqlite3.Connection) -> None:
    db.execute("INSERT OR REPLACE INTO search_meta (key, value) VALUES ('version', ?)", (VERSION,))


# ----- the hooks: each inside the caller's transaction ---------------------------------------------


def index_messages(db: sqlite3.Connection, session: str, keep: int, added: Sequence[str]) -> None:
    """A chat's messages changed: those from `keep` on are replaced by `added` (each message's
    JSON, as the archive stores it)."""
    if not is_built(db):
        return
    _remove(db, "session = ? AND position >= ? AND kind IN ('question', 'reply')", (session, keep))
    at = _now()
    rows = []
    for offset, data in enumerate(added):
        kind, text = _message_entry(data)
        rows.append((session, kind, keep + offset, None, at, text))
    _add(db, rows)


def _message_entry(data: str) -> tuple[str, str]:
    """(kind, text) of a stored message; an unreadable one indexes nothing."""
    try:
        message = json.loads(data)
        role, text = message["role"], message["text"]
    except (ValueError, KeyError, TypeError):
        return "question", ""
    return ("question" if role == "user" else "reply"), text if isinstance(text, str) else ""


def index_turn(db: sqlite3.Connection, session: str, turn: int, started_at: str, artifacts: Sequence[Any]) -> None:
    """A run's record was stored (or rewritten, its claims drawn after the reply): index its
    proposals and claims at its question: where they were, else the chat's latest question (its
    own: the archive stores a turn's messages before its record)."""
    if not is_built(db):
        return
    found = db.execute("SELECT position FROM search_entries WHERE turn = ? LIMIT 1", (turn,)).fetchone()
    found = (
        found
        or db.execute(
            "SELECT position FROM search_entries WHERE session = ? AND kind = 'question' "
            "ORDER BY position DESC LIMIT 1",
            (session,),
        ).fetchone()
    )
    _remove(db, "turn = ?", (turn,))
    _add(db, _run_rows(session, turn, started_at, artifacts, found[0] if found else 0))


def _run_rows(session: str, turn: int, started_at: str, artifacts: Sequence[Any], position: int) -> list[Entry]:
    at = started_at or _now()
    rows: list[Entry] = []
    rows += [(session, "proposal", position, turn, at, text) for text in proposals_of(artifacts)]
    rows += [(session, "claim", position, turn, at, text) for text in claim_texts_of(artifacts)]
    return rows


def proposals_of(artifacts: Sequence[Any]) -> list[str]:
    """The proposals' texts of a run's artifacts (objects or their JSON dicts); a single model's
    answer, which is the final reply itself, is indexed as the reply only."""
    fields = [_fields(artifact) for artifact in artifacts]
    final = {text for kind, text, _ in fields if kind == "final"}
    return [text for kind, text, _ in fields if kind == "answer" and text and text not in final]


def claim_texts_of(artifacts: Sequence[Any]) -> list[str]:
    """The claims of the run's map (its last `claims` artifact not superseded, as
    core/claims/model.claims_of reads it): none if the map was left out."""
    for kind, _, data in reversed([_fields(a) for a in artifacts]):
        if kind != "claims" or data.get("superseded"):
            continue
        claim_map = data.get("map")
        claims = claim_map.get("claims") if isinstance(claim_map, dict) else None
        if not isinstance(claims, list):
            return []
        return [c["text"] for c in claims if isinstance(c, dict) and isinstance(c.get("text"), str)]
    return []


def _fields(artifact: Any) -> tuple[str, str, dict[str, Any]]:
    if isinstance(artifact, dict):
        return str(artifact.get("kind", "")), str(artifact.get("text", "")), artifact.get("data") or {}
    return artifact.kind, artifact.text, artifact.data


def index_name(db: sqlite3.Connection, session: str, title: str) -> None:
    """A chat was renamed: it is found by its new name ("" removes the name)."""
    if not is_built(db):
        return
    _remove(db, "session = ? AND kind = 'name'", (session,))
    _add(db, [(session, "name", NAME_POSITION, None, _now(), title)])


def forget_session(db: sqlite3.Connection, session: str) -> None:
    """A chat was deleted: nothing of it is found any more."""
    _remove(db, "session = ?", (session,))


# ----- building the index of an existing home ------------------------------------------------------


def build(db: sqlite3.Connection, progress: Progress | None = None) -> int:
    """Index every chat of the archive from nothing, inside `db`'s transaction (one that holds
    the write lock, RunArchive.writing, so no save slips in between); returns how many chats."""
    db.execute("DELETE FROM search_entries")
    db.execute("DROP TABLE search_text")  # quicker than deleting its rows one by one
    db.execute(TEXT_SCHEMA)
    sessions = db.execute("SELECT id, title, updated_at FROM sessions ORDER BY id").fetchall()
    for done, (session, title, updated_at) in enumerate(sessions):
        at = updated_at.replace(" ", "T") if updated_at else _now()
        items = db.execute(
            "SELECT position, data FROM session_items WHERE session = ? AND list = 'history' ORDER BY position",
            (session,),
        ).fetchall()
        if not items:  # a chat stored before its lists had rows of their own
            items = list(enumerate(_head_history(db, session)))
        rows: list[Entry] = []
        questions: list[tuple[int, str]] = []
        for position, data in items:
            kind, text = _message_entry(data)
            rows.append((session, kind, position, None, at, text))
            if kind == "question":
                questions.append((position, text))
        if title:
            rows.append((session, "name", NAME_POSITION, None, at, title))
        _add(db, rows + _runs_rows(db, session, questions))
        if progress is not None:
            progress(done + 1, len(sessions))
    mark_built(db)
    return len(sessions)


def _head_history(db: sqlite3.Connection, session: str) -> list[str]:
    row = db.execute("SELECT data FROM sessions WHERE id = ?", (session,)).fetchone()
    try:
        history = json.loads(row[0]).get("history") or []
    except (ValueError, AttributeError, TypeError):
        return []
    return [json.dumps(message) for message in history if isinstance(message, dict)]


def _runs_rows(db: sqlite3.Connection, session: str, questions: list[tuple[int, str]]) -> list[Entry]:
    """Index a chat's runs' proposals and claims, each at the question it answered: the runs and
    the questions are matched in order by their text (a failed run's question may be missing)."""
    runs = db.execute("SELECT id, started_at, query, record FROM turns WHERE session = ? ORDER BY id", (session,))
    at_question = 0
    rows: list[Entry] = []
    for turn, started_at, query, record in runs.fetchall():
        for index in range(at_question, len(questions)):
            if questions[index][1] == query:
                at_question = index
                break
        position = questions[at_question][0] if questions else 0
        try:
            artifacts = json.loads(record).get("artifacts") or []
        except (ValueError, AttributeError):
            artifacts = []
        rows += _run_rows(session, turn, started_at, artifacts, position)
    return rows


# ----- searching ---------------------------------------------------------------------------------------


def search(db: sqlite3.Connection, query: str | Query, limit: int = 20) -> list[Hit]:
    """The best `limit` entries for the query: by relevance (bm25), the newest first among equals.

    Ranking costs a few microseconds per entry found, and a common word is in most of them (in
    a home of 80,000 entries, 60,000: 200 ms). So a query that finds more than RANKED entries
    ranks the newest RANKED of them (their rowids are the highest: an entry is added when its
    turn is saved); what an older one says is found by adding a word."""
    parsed = parse_query(query) if isinstance(query, str) else query
    if parsed.fts is None or limit <= 0:
        return []
    bound = db.execute(
        "SELECT rowid FROM search_text WHERE search_text MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
        (parsed.fts, RANKED - 1),
    ).fetchone()
    # FTS5 sorts by rank itself and computes a snippet only for the rows it returns; a few more
    # than asked for, so that ties at the limit go to the newest.
    found = db.execute(
        "SELECT rowid, rank, snippet(search_text, 0, ?, ?, '…', ?) FROM search_text "
        "WHERE search_text MATCH ? AND rowid >= ? ORDER BY rank LIMIT ?",
        (MATCH_START, MATCH_END, SNIPPET_WORDS, parsed.fts, bound[0] if bound else 0, limit + TIES),
    ).fetchall()
    found = sorted(found, key=lambda row: (row[1], -row[0]))[:limit]
    if not found:
        return []
    marks = ", ".join("?" * len(found))
    entries = {
        row[0]: row[1:]
        for row in db.execute(
            "SELECT e.id, e.session, e.kind, e.position, e.at, coalesce(nullif(s.title, ''), s.first_question, '') "
            f"FROM search_entries e LEFT JOIN sessions s ON s.id = e.session WHERE e.id IN ({marks})",
            [row[0] for row in found],
        )
    }
    hits = []
    for rowid, _, snippet in found:
        if rowid in entries:
            session, kind, position, at, name = entries[rowid]
            hits.append(Hit(session, kind, position, at, snippet, name))
    return hits
