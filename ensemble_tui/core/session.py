"""The chat session: official history, per-model last outputs, resubmissions, cost, PDF path.

`Session.json` holds everything needed to restore it at the next start; the Markdown
transcript in `Chats/` holds user inputs and final replies only. Both are rewritten
atomically after every change, and only then: a save is made twice a turn on the event loop
that also draws the app, and in a long chat each file is megabytes (see bench/README.md).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ensemble_tui.core.atomic import atomic_write_text
from ensemble_tui.core.home import HomePaths
from ensemble_tui.core.provider import Turn

SESSION_ID_FORMAT = "%Y-%m-%d_%H-%M-%S"


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Literal["user", "assistant"]
    text: str
    sources: list[str] = Field(default_factory=list)


class ModelOutput(BaseModel):
    """What a model last produced as proposer or single model, and the query that caused it."""

    model_config = ConfigDict(extra="ignore")

    query: str
    text: str
    model: str = ""
    note: str = ""  # e.g. that this provider got the PDF as extracted text


class Resubmission(BaseModel):
    """One synthesis request the aggregator sent back: the proposals and its remarks."""

    model_config = ConfigDict(extra="ignore")

    iteration: int
    text: str


def new_session_id(now: datetime | None = None) -> str:
    return (now or datetime.now()).strftime(SESSION_ID_FORMAT)


class SessionData(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    id: str = Field(default_factory=new_session_id)
    history: list[ChatMessage] = Field(default_factory=list)
    last_outputs: dict[str, ModelOutput] = Field(default_factory=dict)
    resubmissions: list[Resubmission] = Field(default_factory=list)
    cost_usd: float = 0.0
    pdf_path: str | None = None
    last_mode: str | None = None
    last_style: str | None = None

    @property
    def pending_input(self) -> str | None:
        """The latest user input if it has no reply yet (a failed or unanswered turn)."""
        if self.history and self.history[-1].role == "user":
            return self.history[-1].text
        return None

    @property
    def last_user_input(self) -> str | None:
        for message in reversed(self.history):
            if message.role == "user":
                return message.text
        return None

    def answered_turns(self) -> tuple[Turn, ...]:
        """History for model calls: answered user/reply pairs only, in order.

        A user input left without a reply (its turn failed) is not sent to models, so the
        conversation they see always alternates cleanly.
        """
        turns: list[Turn] = []
        for index, message in enumerate(self.history):
            if message.role == "user":
                following = self.history[index + 1] if index + 1 < len(self.history) else None
                if following is not None and following.role == "assistant":
                    turns.append(Turn("user", message.text))
            else:
                turns.append(Turn("assistant", message.text))
        return tuple(turns)


def render_transcript(session: SessionData) -> str:
    """The Markdown transcript: user inputs and final replies only."""
    parts = [f"# Chat {session.id}"]
    if session.pdf_path:
        parts.append(f"PDF: `{session.pdf_path}`")
    for message in session.history:
        heading = "## You" if message.role == "user" else "## Reply"
        parts.append(f"{heading}\n\n{message.text.strip()}")
        if message.sources:
            parts.append("Sources:\n" + "\n".join(f"- <{url}>" for url in message.sources))
    return "\n\n".join(parts) + "\n"


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def frozen_copy(session: SessionData) -> SessionData:
    """A copy that later changes to `session` do not reach, made in microseconds: its lists and
    dicts are new, the messages in them shared (a message is never changed once made, only
    added, removed or replaced). Rendering a long chat takes ~10 ms; a copy lets that happen
    on a worker thread while the app changes the session."""
    return session.model_copy(
        update={
            "history": list(session.history),
            "last_outputs": dict(session.last_outputs),
            "resubmissions": list(session.resubmissions),
        }
    )


def session_json(session: SessionData) -> str:
    """Session.json's text: indented JSON, non-ASCII kept as is, one trailing newline.

    Serialised by pydantic's Rust core, about twice as fast as `json.dumps(indent=2)` on a
    long chat; the text reads back identically (only float spelling may differ, e.g. 1e-07).
    """
    return session.model_dump_json(indent=2) + "\n"


@dataclass(frozen=True)
class SessionSnapshot:
    """Everything one save writes, rendered from the live session on the caller's thread, so
    the thread that writes it never reads a session the app may be changing."""

    seq: int  # later snapshots have higher numbers; an older one never overwrites a newer one
    session_id: str
    session_text: str
    transcript_path: Path
    transcript_text: str | None  # None until the chat has text
    first_question: str
    answered: int
    cost_usd: float


@dataclass
class SessionStore:
    """Loads and saves the current session and its transcript in a home folder.

    It remembers what it last wrote to each file, so a save that changes nothing (a failed
    turn's second save, a PDF cleared twice) writes nothing.
    """

    paths: HomePaths
    _written: dict[Path, tuple[str, int, int]] = field(default_factory=dict, repr=False)  # text, mtime, size
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _seq: int = 0
    _written_seq: int = 0

    def transcript_path(self, session: SessionData) -> Path:
        return self.paths.chats / f"{session.id}.md"

    def load(self) -> tuple[SessionData, str | None]:
        """The saved session, or a fresh one; a broken file is kept aside with a warning."""
        path = self.paths.session_file
        if not path.exists():
            return SessionData(), None
        try:
            return SessionData.model_validate(json.loads(path.read_text(encoding="utf-8"))), None
        except (json.JSONDecodeError, ValidationError, UnicodeDecodeError, OSError):
            aside = path.with_name(f"{path.name}.broken-{datetime.now():%Y%m%d-%H%M%S}")
            try:
                path.replace(aside)
            except OSError:
                pass
            return SessionData(), (
                f"Session.json could not be read; kept as {aside.name}, started a new chat "
                "(transcripts in Chats/ are intact)."
            )

    def snapshot(self, session: SessionData, seq: int | None = None) -> SessionSnapshot:
        """Render what a save writes; `seq` (from `next_seq()`) orders saves rendered on
        another thread as they were asked for."""
        return SessionSnapshot(
            seq=self.next_seq() if seq is None else seq,
            session_id=session.id,
            session_text=session_json(session),
            transcript_path=self.transcript_path(session),
            transcript_text=render_transcript(session) if session.history else None,
            first_question=next((m.text for m in session.history if m.role == "user"), ""),
            answered=sum(1 for m in session.history if m.role == "assistant"),
            cost_usd=session.cost_usd,
        )

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def write(self, snapshot: SessionSnapshot) -> bool:
        """Write Session.json and the transcript from a snapshot; safe from any thread.

        Returns False (writing nothing) when a newer snapshot was written already, so a save
        finishing late in a worker thread cannot bring back an older state.
        """
        with self._lock:
            if snapshot.seq < self._written_seq:
                return False
            self._write(self.paths.session_file, snapshot.session_text)
            if snapshot.transcript_text is not None:
                self._write(snapshot.transcript_path, snapshot.transcript_text)
            self._written_seq = snapshot.seq
            return True

    def save(self, session: SessionData) -> SessionSnapshot:
        """Write Session.json and the transcript now; returns what was written."""
        snapshot = self.snapshot(session)
        self.write(snapshot)
        return snapshot

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

    def new_session(self, previous: SessionData | None = None) -> SessionData:
        """A fresh session with a new transcript name (never reusing the previous one's)."""
        session = SessionData()
        base, suffix = session.id, 1
        while self.transcript_path(session).exists() or (previous is not None and session.id == previous.id):
            suffix += 1
            session.id = f"{base}-{suffix}"
        self.save(session)
        return session
