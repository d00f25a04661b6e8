"""The eval's questions: from a file the user wrote, or from the last questions of their own chats.

A question's id hashes its text, its PDF and the chat before it, so the same question read again
(a rerun after a kill) gets the same id and its stored answers are found and skipped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ensemble_tui.core.chat.session import ChatMessage, SessionData
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.store.session_store import SessionStore
from ensemble_tui.eval.model import EvalQuestion


class QuestionEntry(BaseModel):
    """One entry of a JSON questions file."""

    model_config = ConfigDict(extra="forbid")

    question: str
    pdf: str | None = None


def question_id(text: str, pdf: str | None, history: Sequence[ChatMessage] = ()) -> str:
    """A stable id: the same text, PDF path and prior chat give the same id on every run."""
    digest = hashlib.sha256()
    for part in (text.strip(), pdf or "", *(f"{m.role}:{m.text}" for m in history)):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:16]


def make_question(text: str, pdf: str | None = None, history: Sequence[ChatMessage] = ()) -> EvalQuestion:
    kept = tuple(ChatMessage(role=m.role, text=m.text) for m in history)  # what models read; no provenance
    return EvalQuestion(id=question_id(text, pdf, kept), text=text.strip(), pdf=pdf, history=kept)


def from_file(path: Path) -> list[EvalQuestion]:
    """One question per line (blank lines and `#` comments skipped), or a JSON list of
    {"question", "pdf"}; a relative PDF path is read from the file's folder. Raises
    EnsembleError with one line when the file cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EnsembleError(
            f"Cannot read the questions file {path} ({getattr(exc, 'strerror', None) or exc})."
        ) from None
    if text.lstrip().startswith("["):
        try:
            entries = [QuestionEntry.model_validate(item) for item in json.loads(text)]
        except (ValueError, ValidationError, TypeError) as exc:
            first = str(exc).splitlines()[0]
            raise EnsembleError(f'{path}: not a JSON list of {{"question", "pdf"}} ({first}).') from None
        questions = [make_question(e.question, _pdf_path(e.pdf, path.parent)) for e in entries if e.question.strip()]
    else:
        lines = (line.strip() for line in text.splitlines())
        questions = [make_question(line) for line in lines if line and not line.startswith("#")]
    if not questions:
        raise EnsembleError(f"{path} holds no question.")
    return _unique(questions)


def _pdf_path(pdf: str | None, folder: Path) -> str | None:
    if not pdf:
        return None
    path = Path(pdf).expanduser()
    return str((path if path.is_absolute() else folder / path).resolve())


def from_sessions(sessions: Iterable[SessionData], count: int) -> list[EvalQuestion]:
    """The last `count` answered user questions of these chats (given newest first), oldest
    first; each with its chat's PDF and the chat before it."""
    found: list[EvalQuestion] = []
    for session in sessions:
        history = session.history
        for index in range(len(history) - 1, -1, -1):
            message = history[index]
            answered = index + 1 < len(history) and history[index + 1].role == "assistant"
            if message.role == "user" and answered and message.text.strip():
                found.append(make_question(message.text, session.pdf_path, history[:index]))
                if len(found) == count:
                    return _unique(reversed(found))
    return _unique(reversed(found))


def from_history(store: SessionStore, count: int) -> list[EvalQuestion]:
    """`from_sessions` over the home's archived chats, newest first (read only)."""

    def chats() -> Iterable[SessionData]:
        for summary in store.archive.sessions():
            session = store.archived(summary.id)
            if session is not None:
                yield session

    return from_sessions(chats(), count)


def _unique(questions: Iterable[EvalQuestion]) -> list[EvalQuestion]:
    """The same question twice (same id) is asked once."""
    return list({q.id: q for q in questions}.values())
