"""Saving and restoring the current session so that a save costs what changed, not the chat.

A session lives in three places:
- its lists (messages, resubmissions) in the archive database, one row per item: a save adds
  the new items and removes those taken back (a redo, a cancelled turn), in one transaction;
- the rest of it (id, PDF, last outputs, cost, mode) in `Session.json`, with how many items
  of each list the archive holds: a small file, read at start to find the session again;
- its Markdown transcript in `Chats/`, user inputs and final replies only.

The database is written first, then Session.json, then the transcript, each all-or-nothing,
so a crash at any moment leaves a session that restores with every completed turn. Files
written before the lists moved to the archive hold the lists themselves; they are read as
they are and the first save stores their items.
"""

from __future__ import annotations

import errno
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ensemble_tui.core.archive import ListChange, RunArchive, SessionRow
from ensemble_tui.core.atomic import aside_path, atomic_write_text
from ensemble_tui.core.home import HomePaths
from ensemble_tui.core.session import LISTS, SessionData, render_transcript, unchanged_prefix, with_items


class SessionFile(BaseModel):
    """What Session.json says beyond the session's own fields: how many items of each list the
    archive holds. None in files that hold the lists themselves (written by older versions)."""

    model_config = ConfigDict(extra="ignore")

    archived: dict[str, int] | None = None


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


@dataclass
class SessionStore:
    """Loads and saves the current session (see the module's docstring).

    It remembers which items of each list it last stored, to write only the difference, and
    what it last wrote to each file, so a save that changes nothing there writes nothing.
    """

    paths: HomePaths
    archive: RunArchive
    _stored: dict[str, dict[str, list[Any]]] = field(default_factory=dict, repr=False)  # id -> list -> items
    _written: dict[Path, tuple[str, int, int]] = field(default_factory=dict, repr=False)  # text, mtime, size

    def transcript_path(self, session: SessionData) -> Path:
        return self.paths.chats / f"{session.id}.md"

    # ----- restoring ----------------------------------------------------------------------------

    def load(self) -> tuple[SessionData, str | None]:
        """The saved session, or a fresh one with a one-line warning if it cannot be restored
        whole (a broken file is kept aside; a transcript is never overwritten)."""
        path = self.paths.session_file
        if not path.exists():
            return SessionData(), None
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            session, file = SessionData.model_validate(raw), SessionFile.model_validate(raw)
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
        if file.archived is None:
            return session, None  # the lists came with the file; the first save stores them
        try:
            restored = self.archived(session.id)
        except sqlite3.Error as exc:
            return self._fresh(session), self._unreadable(exc)
        if restored is None:
            if not any(file.archived.values()):
                return session, None
            return self._fresh(session), (
                f"{self.paths.archive.name} no longer holds chat {session.id}; its transcript is "
                f"Chats/{session.id}.md. Started a new chat."
            )
        return restored, None

    def archived(self, session_id: str) -> SessionData | None:
        """A session as the archive holds it (raises sqlite3.Error if it cannot be read)."""
        stored = self.archive.load_session(session_id)
        if stored is None:
            return None
        session = with_items(SessionData.model_validate_json(stored.head), stored.items)
        # An empty list without rows is stored as it is; a list without rows that the row's
        # JSON carries (stored before lists had rows) is stored in full by the next save.
        self._stored[session.id] = {
            name: list(getattr(session, name)) for name in LISTS if name in stored.items or not getattr(session, name)
        }
        return session

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
        """Store what changed in the archive, then rewrite Session.json and the transcript.

        The transcript (megabytes in a long chat) may wait for a later save (`transcript=False`):
        it is rendered from the stored session, which holds everything it would show.
        Raises OSError (the archive's errors included) if anything cannot be written; what was
        stored stays stored and the next save writes the rest.
        """
        stored = self._stored.get(session.id, {})
        changes: dict[str, ListChange] = {}
        for name in LISTS:
            items: list[Any] = getattr(session, name)
            before = stored.get(name)
            keep = 0 if before is None else unchanged_prefix(before, items)
            if before is None or keep < len(before) or keep < len(items):
                changes[name] = ListChange(keep, [item.model_dump_json() for item in items[keep:]])
        history = session.history
        # Session.json's text is also the archive row's JSON (`archived` is ignored on reading).
        head = session.model_dump(mode="json", exclude=set(LISTS))
        head["archived"] = {name: len(getattr(session, name)) for name in LISTS}
        head_text = json.dumps(head, indent=2, ensure_ascii=False) + "\n"
        row = SessionRow(
            id=session.id,
            first_question=next((m.text for m in history if m.role == "user"), ""),
            turns=sum(1 for m in history if m.role == "assistant"),
            cost_usd=session.cost_usd,
            head=head_text,
        )
        try:
            self.archive.save_session(row, changes)
        except sqlite3.Error as exc:
            raise OSError(errno.EIO, f"cannot store the chat history: {exc}", str(self.paths.archive)) from exc
        # Only the chat being saved is remembered: another one, reopened, is read afresh.
        self._stored = {session.id: {name: list(getattr(session, name)) for name in LISTS}}
        self._write(self.paths.session_file, head_text)
        if transcript and history:
            self._write(self.transcript_path(session), render_transcript(session))

    def _write(self, path: Path, text: str) -> None:
        """Write `text` atomically unless this store last wrote exactly that to `path` and the
        file is untouched since (same mtime and size): a file deleted, edited or replaced behind
        our back is written again."""
        last = self._written.pop(path, None)  # a failed write must not be remembered as done
        if last is not None and last[0] == text and _stamp(path) == last[1:]:
            self._written[path] = last
            return
        atomic_write_text(path, text)
        stamp = _stamp(path)
        if stamp is not None:
            self._written[path] = (text, *stamp)

    def new_session(self, previous: SessionData | None = None, *, save: bool = True) -> SessionData:
        """A fresh session with a new transcript name (never reusing the previous one's)."""
        session = SessionData()
        base, suffix = session.id, 1
        while self.transcript_path(session).exists() or (previous is not None and session.id == previous.id):
            suffix += 1
            session.id = f"{base}-{suffix}"
        if save:
            self.save(session)
        return session
