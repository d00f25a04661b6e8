"""The eval's questions: from a file the user wrote, or from the last questions of their own chats.

A question's id hashes its text, its PDF and the chat before it, so the same question read again
(a rerun after a kill) gets the same id and its stored answers are found and skipped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ensemble_tui.core.chat.session import ChatMessage, SessionData
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.store.session_store import SessionStore
from ensemble_tui.eval.model import EvalQuestion


class QuestionEntry(BaseModel):
    """One entry of a JSON questions file: a question, its paper, and optionally its known
    answer and the passage that holds it."""

    model_config = ConfigDict(extra="forbid")

    question: str
    pdf: str | None = None
    answer: str | None = None
    evidence: str | None = None


FIELDS = '{"question", "pdf", "answer", "evidence"}'
UNANSWERABLE = "The paper does not answer this question."


def question_id(
    text: str,
    pdf: str | None,
    history: Sequence[ChatMessage] = (),
    answer: str | None = None,
    evidence: str | None = None,
) -> str:
    """A stable id: the same text, PDF path and prior chat (and known answer, if any) give the
    same id on every run; a corrected known answer is a new question, graded again."""
    digest = hashlib.sha256()
    known = (answer or "", evidence or "") if answer else ()
    for part in (text.strip(), pdf or "", *(f"{m.role}:{m.text}" for m in history), *known):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:16]


def make_question(
    text: str,
    pdf: str | None = None,
    history: Sequence[ChatMessage] = (),
    answer: str | None = None,
    evidence: str | None = None,
) -> EvalQuestion:
    kept = tuple(ChatMessage(role=m.role, text=m.text) for m in history)  # what models read; no provenance
    answer = answer.strip() if answer and answer.strip() else None
    evidence = evidence.strip() if answer and evidence and evidence.strip() else None
    return EvalQuestion(
        id=question_id(text, pdf, kept, answer, evidence),
        text=text.strip(),
        pdf=pdf,
        history=kept,
        answer=answer,
        evidence=evidence,
    )


def from_file(path: Path) -> list[EvalQuestion]:
    """One question per line (blank lines and `#` comments skipped); or JSON: a list of
    {"question", "pdf", "answer", "evidence"}, or one such object per line (JSON lines), with
    QASPER's fields mapped (`qasper_entries`). A relative PDF path is read from the file's
    folder. Raises EnsembleError with one line when the file cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EnsembleError(
            f"Cannot read the questions file {path} ({getattr(exc, 'strerror', None) or exc})."
        ) from None
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        questions = [
            make_question(e.question, _pdf_path(e.pdf, path.parent), answer=e.answer, evidence=e.evidence)
            for e in _entries(path, stripped)
            if e.question.strip()
        ]
    else:
        lines = (line.strip() for line in text.splitlines())
        questions = [make_question(line) for line in lines if line and not line.startswith("#")]
    if not questions:
        raise EnsembleError(f"{path} holds no question.")
    return _unique(questions)


def _entries(path: Path, text: str) -> list[QuestionEntry]:
    """The entries of a JSON list or of JSON lines, QASPER's mapped; EnsembleError names the first fault."""
    try:
        if text.startswith("["):
            items = json.loads(text)
            if not isinstance(items, list):
                raise TypeError("not a list")
        else:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        entries: list[QuestionEntry] = []
        for item in items:
            if not isinstance(item, dict):
                raise TypeError(f"an entry is not an object: {str(item)[:40]!r}")
            mapped = qasper_entries(item)
            entries += [QuestionEntry.model_validate(entry) for entry in (mapped if mapped is not None else [item])]
        return entries
    except (ValueError, ValidationError, TypeError) as exc:
        first = " ".join(line.strip() for line in str(exc).splitlines()[:2])
        raise EnsembleError(f"{path}: not JSON of {FIELDS} (a list, or one object a line) ({first}).") from None


def qasper_entries(item: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """QASPER's fields (allenai/qasper, CC BY 4.0) as ours, or None when `item` is not QASPER's.

    - a paper `{"qas": [...], "pdf"?}`: each of its questions, with the paper's `pdf`;
    - a question `{"question", "answers": [{"answer": {...}}], "pdf"?}`: the first annotator's
      answer is the known answer: its `free_form_answer`, else its `extractive_spans` joined
      by "; ", else "Yes" or "No" from `yes_no`, else (`unanswerable`) "The paper does not
      answer this question."; `evidence` is its `highlighted_evidence`, else its `evidence`,
      paragraphs joined by a blank line (figure and table references left out)."""
    if isinstance(item.get("qas"), list):
        pdf = item.get("pdf")
        found: list[dict[str, Any]] = []
        for qa in item["qas"]:
            if isinstance(qa, Mapping):
                found += qasper_entries({**qa, **({"pdf": pdf} if pdf else {})}) or []
        return found
    if not isinstance(item.get("answers"), list) or "answer" in item:
        return None
    entry: dict[str, Any] = {"question": str(item.get("question", "")), "pdf": item.get("pdf")}
    annotations = [a.get("answer", a) for a in item["answers"] if isinstance(a, Mapping)]
    if annotations and isinstance(annotations[0], Mapping):
        first = annotations[0]
        spans = [str(span) for span in first.get("extractive_spans") or [] if str(span).strip()]
        if first.get("unanswerable"):
            entry["answer"] = UNANSWERABLE
        elif str(first.get("free_form_answer") or "").strip():
            entry["answer"] = str(first["free_form_answer"])
        elif spans:
            entry["answer"] = "; ".join(spans)
        elif isinstance(first.get("yes_no"), bool):
            entry["answer"] = "Yes" if first["yes_no"] else "No"
        passages = first.get("highlighted_evidence") or first.get("evidence") or []
        kept = [str(p) for p in passages if str(p).strip() and not str(p).startswith("FLOAT SELECTED")]
        if kept:
            entry["evidence"] = "\n\n".join(kept)
    return [entry]


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
