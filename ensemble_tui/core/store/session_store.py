"""Saving and restoring sessions: one write path per turn, safe with two processes on one home.

A session lives in two places:
- the archive database: its row (the session's fields as JSON, the summary the history screen
  lists, a revision) and its lists (messages, resubmissions), one row per item;
- its Markdown transcript in `Chats/`, user inputs and final replies only.
`Session.json` only names the current chat; it is written when the current chat changes.

A turn is saved by `commit_turn`: one transaction that holds the database's write lock, in
which the session's items, its row and the turn's record are written; once it has committed,
the transcript is rewritten from what is stored (never before: a transcript holding a turn the
database lacks would lose it at the next rewrite), each message's block rendered once
(core/store/transcript.py). If another process added turns to the same
chat since this one last saw it (its revision moved on), this turn's messages are appended to
the chat as it now stands, never over it. A crash at any moment leaves every completed turn.
A new chat's id is claimed in one transaction, so chats started at once never share one.
Files written by older versions (Session.json holding the session, or its lists) are read as
they are and the first save stores them the new way.
"""

from __future__ import annotations

import errno
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.chat.session import (
    LISTS,
    ChatMessage,
    ModelOutput,
    Resubmission,
    SessionData,
    unchanged_prefix,
    with_items,
)
from ensemble_tui.core.store.archive import ListChange, RunArchive, SessionRow, StoredSession
from ensemble_tui.core.store.atomic import aside_path, atomic_write_text
from ensemble_tui.core.store.budget_ledger import release_turn
from ensemble_tui.core.store.home import HomePaths
from ensemble_tui.core.store.transcript import TranscriptBlocks


class SessionFile(BaseModel):
    """What Session.json says: the current chat's id. Older versions also wrote the session's
    fields there, with `archived` (how many items the archive holds) or, older still, the lists
    themselves (`archived` None, `history` present)."""

    model_config = ConfigDict(extra="ignore")

    id: str
    archived: dict[str, int] | None = None
    history: list[Any] | None = None


@dataclass(frozen=True)
class TurnChange:
    """Everything one step of a turn changes, for `commit_turn` (the one commit: core/turn/commit.py's
    `save` is its only caller, for the turn's outcome and for a claim map drawn after it).

    `session` is the session as the step leaves it; `appended` are the messages that make up
    the turn's contribution on their own (its question and, if any, its reply), appended to the
    chat as it stands if another process moved it on; `resubmissions` likewise. `spent` is what
    the step's calls cost, added to the stored cost. `record` is the run's record: added, or,
    with `amends` (its row), rewritten in place (a late claim map and its calls).

    All of it is written in one transaction or none of it: what a step replaces (a redo's reply
    left out of `session`) is replaced only in the transaction that stores its replacement, so a
    step that fails leaves the stored chat as it was.
    """

    session: SessionData
    appended: list[ChatMessage]
    resubmissions: list[Resubmission]
    outputs: dict[str, ModelOutput]
    spent: float
    record: TurnRecord | None
    turn: str | None = None  # the turn's key in the budget ledger: its reservations go with this commit
    amends: int | None = None  # the stored record `record` replaces (None: it is a new one)


class TranscriptError(OSError):
    """The turn is stored in the archive, but its Markdown transcript could not be written."""


@dataclass(frozen=True)
class Committed:
    """A committed turn: the session as now stored; `merged` if another process's turns are in it."""

    session: SessionData
    merged: bool
    turn_id: int | None = None  # the turn's record's row in the archive (RunArchive.amend_turn)


@dataclass
class SessionStore:
    """Loads and saves sessions (see the module's docstring).

    It remembers which items of each list it last stored for the chat it saves, and that
    chat's revision, to write only the difference and to notice another process's turns.
    """

    paths: HomePaths
    archive: RunArchive
    _stored: dict[str, dict[str, list[Any]]] = field(default_factory=dict, repr=False)  # id -> list -> items
    _revisions: dict[str, int] = field(default_factory=dict, repr=False)
    _pointer: str | None = field(default=None, repr=False)  # the id Session.json last got from here
    _transcript: TranscriptBlocks = field(default_factory=TranscriptBlocks, repr=False)  # its rendered blocks

    def transcript_path(self, session: SessionData) -> Path:
        return self.paths.chats / f"{session.id}.md"

    # ----- restoring ----------------------------------------------------------------------------

    def load(self) -> tuple[SessionData, str | None]:
        """The current session, or a fresh one with a one-line warning if it cannot be restored
        whole (a broken file is kept aside; a transcript is never overwritten)."""
        path = self.paths.session_file
        if not path.exists():
            return SessionData(), None
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            file = SessionFile.model_validate(raw)
            session = SessionData.model_validate(raw)
        except (json.JSONDecodeError, ValidationError, UnicodeDecodeError, OSError):
            aside = aside_path(path)
            try:
                path.replace(aside)
            except OSError:
                pass
            return SessionData(), (
                f"Session.json could not be read; kept as {aside.name}, started a new chat "
                "(transcripts in Chats/ are intact)."
            )
        if file.archived is None and file.history is not None:
            return session, None  # an older file with the lists in it; the first save stores them
        try:
            restored = self.archived(file.id)
        except sqlite3.Error as exc:
            return self._fresh(session), self._unreadable(exc)
        if restored is None:
            if file.archived is not None and not any(file.archived.values()):
                return session, None
            return self._fresh(session), (
                f"{self.paths.archive.name} no longer holds chat {file.id}; its transcript is "
                f"Chats/{file.id}.md. Started a new chat."
            )
        self._pointer = file.id
        return restored, None

    def pointer(self) -> str | None:
        """The id Session.json names, read and left as it is; None if there is none to read."""
        try:
            return SessionFile.model_validate_json(self.paths.session_file.read_bytes()).id
        except (OSError, ValidationError, ValueError):
            return None

    def archived(self, session_id: str) -> SessionData | None:
        """A session as the archive holds it (raises sqlite3.Error if it cannot be read)."""
        stored = self.archive.load_session(session_id)
        return None if stored is None else self._restore(stored)

    def _restore(self, stored: StoredSession) -> SessionData:
        session = with_items(SessionData.model_validate_json(stored.head), stored.items)
        # An empty list without rows is stored as it is; a list without rows that the row's
        # JSON carries (stored before lists had rows) is stored in full by the next save.
        self._stored[session.id] = {
            name: list(getattr(session, name)) for name in LISTS if name in stored.items or not getattr(session, name)
        }
        self._revisions[session.id] = stored.revision
        return session

    def changed_elsewhere(self, session: SessionData) -> SessionData | None:
        """The session as stored now if another process saved turns to it since this store last
        read or wrote it; None if not (or if the archive cannot tell)."""
        known = self._revisions.get(session.id)
        try:
            if known is None or self.archive.revision(session.id) in (None, known):
                return None
            stored = self.archive.load_session(session.id)
        except sqlite3.Error:
            return None
        return None if stored is None else self._restore(stored)

    def _fresh(self, lost: SessionData) -> SessionData:
        """A new session in place of one whose history cannot be read: saving that one would
        overwrite its transcript, the one copy of its text left."""
        return self.new_session(lost, save=False)

    def _unreadable(self, exc: sqlite3.Error) -> str:
        """The warning for an archive that cannot be read; a damaged one (not a lock, not a full
        disk) is kept aside so that a fresh one takes the new chat."""
        kept = ""
        if type(exc) is sqlite3.DatabaseError:
            try:
                kept = f"kept as {self.archive.set_aside().name}, "
            except OSError:
                pass
        return (
            f"{self.paths.archive.name} could not be read ({exc}); {kept}started a new chat "
            "(transcripts in Chats/ are intact)."
        )

    # ----- saving -------------------------------------------------------------------------------

    def save(self, session: SessionData, *, transcript: bool = True) -> None:
        """Store the session as it is (a new chat, a reopened one, a PDF or style chosen): what
        changed in the archive, then the transcript and, if the current chat changed, Session.json.

        Raises OSError (the archive's errors included) if anything cannot be written; what was
        stored stays stored and the next save writes the rest.
        """
        try:
            with self.archive.writing() as db:
                remembered = self._store(session, db)
        except sqlite3.Error as exc:
            raise OSError(errno.EIO, f"cannot store the chat history: {exc}", str(self.paths.archive)) from exc
        self._remember(*remembered)
        self._point_at(session.id)
        if transcript and session.history:
            atomic_write_text(self.transcript_path(session), self._transcript.render(session))

    def commit_turn(self, change: TurnChange, *, on_wait: Callable[[], None] | None = None) -> Committed:
        """Save a turn in one transaction (its messages, the session's row and the turn's record,
        under the database's write lock), then rewrite the transcript from what is now stored.

        The transcript is written only once the turn is committed: a transcript never holds a
        turn the database lacks, so rewriting it from the database never drops one (see
        `_write_transcript`). If another process holds the lock (it is saving), `on_wait` is
        called and this one waits for it. Raises OSError if the turn cannot be stored, and
        TranscriptError (an OSError) if it was stored but its transcript could not be written.
        """
        for patience_s in (0.25, 30.0):
            try:
                with self.archive.writing(busy_timeout_s=patience_s) as db:
                    committed, remembered = self._commit(change, db)
                    if change.turn is not None:
                        release_turn(db, change.session.id, change.turn)
                break
            except sqlite3.OperationalError as exc:
                if patience_s > 1 or "locked" not in str(exc):
                    raise OSError(errno.EIO, f"cannot store the chat history: {exc}", str(self.paths.archive)) from exc
                if on_wait is not None:
                    on_wait()
            except sqlite3.Error as exc:
                raise OSError(errno.EIO, f"cannot store the chat history: {exc}", str(self.paths.archive)) from exc
        self._remember(*remembered)
        self._point_at(committed.session.id)
        self._write_transcript(committed.session, remembered[1])
        return committed

    def _commit(self, change: TurnChange, db: sqlite3.Connection) -> tuple[Committed, tuple[SessionData, int]]:
        session = change.session
        stored = db.execute("SELECT revision FROM sessions WHERE id = ?", (session.id,)).fetchone()
        known = self._revisions.get(session.id)
        if stored is None or known is None or stored[0] == known:
            remembered = self._store(session, db)
            return Committed(session, merged=False, turn_id=self._save_record(change, db)), remembered
        # Another process saved turns to this chat: append this turn to the chat as it now is.
        now = self.archive.load_session(session.id, db=db)
        assert now is not None, "the row was just read in this transaction"
        current = with_items(SessionData.model_validate_json(now.head), now.items)
        merged = current.model_copy(
            update={
                "history": [*current.history, *change.appended],
                "resubmissions": [*current.resubmissions, *change.resubmissions],
                "last_outputs": {**current.last_outputs, **change.outputs},
                "cost_usd": current.cost_usd + change.spent,
                "last_mode": session.last_mode,
                "last_style": session.last_style,
            }
        )
        self._stored[session.id] = {name: list(getattr(current, name)) for name in LISTS}
        remembered = self._store(merged, db)
        return Committed(merged, merged=True, turn_id=self._save_record(change, db)), remembered

    def _save_record(self, change: TurnChange, db: sqlite3.Connection) -> int | None:
        if change.record is None:
            return change.amends
        if change.amends is not None:
            self.archive.amend_turn(change.amends, change.record, db=db)
            return change.amends
        return self.archive.save_turn(change.record, db=db)

    def _store(self, session: SessionData, db: sqlite3.Connection) -> tuple[SessionData, int]:
        """Write the session's row and what changed in its lists, inside `db`; returns what to
        remember once the transaction has committed (a turn's record is saved by its caller)."""
        stored = self._stored.get(session.id, {})
        changes: dict[str, ListChange] = {}
        for name in LISTS:
            items: list[Any] = getattr(session, name)
            before = stored.get(name)
            keep = 0 if before is None else unchanged_prefix(before, items)
            if before is None or keep < len(before) or keep < len(items):
                changes[name] = ListChange(keep, [item.model_dump_json() for item in items[keep:]])
        history = session.history
        row = SessionRow(
            id=session.id,
            first_question=next((m.text for m in history if m.role == "user"), ""),
            turns=sum(1 for m in history if m.role == "assistant"),
            cost_usd=session.cost_usd,
            head=session.model_dump_json(exclude=set(LISTS)),
        )
        revision = self.archive.save_session(row, changes, db=db)
        return session, revision

    def _remember(self, session: SessionData, revision: int) -> None:
        """Only the chat last saved is remembered: another one, reopened, is read afresh."""
        self._stored = {session.id: {name: list(getattr(session, name)) for name in LISTS}}
        self._revisions = {session.id: revision}

    def _write_transcript(self, session: SessionData, revision: int) -> None:
        """Rewrite the transcript from the chat as stored, under the database's write lock, so
        that two processes saving turns to one chat write it in the order they committed: if
        another one committed since (`revision` moved on), its newer chat is written instead.
        Raises TranscriptError if it cannot be written (the turn is stored all the same)."""
        path = self.transcript_path(session)
        try:
            with self.archive.writing() as db:
                found = db.execute("SELECT revision FROM sessions WHERE id = ?", (session.id,)).fetchone()
                if found is not None and found[0] != revision:
                    stored = self.archive.load_session(session.id, db=db)
                    if stored is not None:
                        session = with_items(SessionData.model_validate_json(stored.head), stored.items)
                if session.history:
                    atomic_write_text(path, self._transcript.render(session))
        except (OSError, sqlite3.Error) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise TranscriptError(errno.EIO, reason, str(path)) from exc

    def _point_at(self, session_id: str) -> None:
        """Make Session.json name `session_id` (written only when that changes)."""
        if self._pointer == session_id and self.paths.session_file.exists():
            return
        atomic_write_text(self.paths.session_file, json.dumps({"id": session_id}) + "\n")
        self._pointer = session_id

    def new_session(self, previous: SessionData | None = None, *, save: bool = True) -> SessionData:
        """A fresh session with a new transcript name (never reusing the previous one's).

        Saved, its id is claimed in the same transaction that finds it free (under the
        database's write lock), so processes starting chats at once each get their own; raises
        OSError if it cannot be saved."""
        session = SessionData()
        if not save:
            self._take_free_id(session, previous, lambda candidate: self._stored_already(candidate))
            return session
        try:
            with self.archive.writing() as db:

                def stored(candidate: str) -> bool:
                    return db.execute("SELECT 1 FROM sessions WHERE id = ?", (candidate,)).fetchone() is not None

                self._take_free_id(session, previous, stored)
                remembered = self._store(session, db)
        except sqlite3.Error as exc:
            raise OSError(errno.EIO, f"cannot store the chat history: {exc}", str(self.paths.archive)) from exc
        self._remember(*remembered)
        self._point_at(session.id)
        return session

    def _take_free_id(self, session: SessionData, previous: SessionData | None, stored: Callable[[str], bool]) -> None:
        """Give `session` an id no transcript, no stored chat and not `previous` has."""
        base, suffix = session.id, 1
        while (
            self.transcript_path(session).exists()
            or (previous is not None and session.id == previous.id)
            or stored(session.id)
        ):
            suffix += 1
            session.id = f"{base}-{suffix}"

    def delete(self, session_id: str) -> str | None:
        """Remove a past chat: its records in the archive and its transcript in Chats/. Returns
        the PDF it had selected ("" for none; its uploads may then be freed), None if there was no
        such chat. Raises sqlite3.Error if the archive cannot be changed."""
        pdf = self.archive.delete_session(session_id)
        self._stored.pop(session_id, None)
        self._revisions.pop(session_id, None)
        (self.paths.chats / f"{session_id}.md").unlink(missing_ok=True)
        return pdf

    def _stored_already(self, session_id: str) -> bool:
        """Whether the archive holds a chat of that id (a new chat must not take over an empty
        one that was saved, say, at the first start)."""
        try:
            return self.archive.revision(session_id) is not None
        except sqlite3.Error:
            return False
