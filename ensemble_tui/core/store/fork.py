"""Branches: a new chat made from the first turns of another, which stays as it was.

A branch holds copies of its parent's messages up to the fork point (the first N questions
with their replies), its parent's paper, and nothing else of it: no model's last outputs, no
resubmissions, and a cost of its own from zero (its budget counts its own turns). It records
its parent and fork point (`SessionData.parent_id`, `fork_turn`), which the history lists it by
(the archive computes its columns from them). The parent's uploads of the paper are shared:
the branch is noted as a user of each, so it sends the same files, and the clean-up keeps them
while either chat uses them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from ensemble_tui.core.chat.session import ChatMessage, SessionData
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.store.archive import SessionSummary
from ensemble_tui.core.store.session_store import SessionStore
from ensemble_tui.core.store.upload_registry import UploadRegistry


class ForkError(EnsembleError):
    """A fork point that does not name a place in the chat (one line: what to give instead)."""


@dataclass(frozen=True)
class ForkPoint:
    """Where a branch starts: after question `after` (0: before the first) of chat `chat`."""

    chat: str
    after: int

    @classmethod
    def parse(cls, text: str) -> ForkPoint:
        """`CHAT_ID:N`, as `ask --fork` takes it (raises ForkError)."""
        chat, colon, number = text.strip().rpartition(":")
        if not colon or not chat or not number.isdigit():
            raise ForkError(f"--fork takes CHAT_ID:N (the chat, and how many of its questions to keep), not {text!r}")
        return cls(chat, int(number))


def questions(history: Sequence[ChatMessage]) -> int:
    """How many questions a chat has (answered or not)."""
    return sum(1 for message in history if message.role == "user")


def question_number(history: Sequence[ChatMessage], index: int) -> int:
    """The number (from 1) of the question at `history[index]`, or of the question a reply at
    that index answers."""
    return questions(history[: index + 1])


def history_through(history: Sequence[ChatMessage], after: int) -> list[ChatMessage]:
    """The messages of the first `after` questions, each with what follows it up to the next
    question (its reply, if it has one). Raises ForkError if the chat has fewer questions."""
    count = questions(history)
    if after < 0 or after > count:
        raise ForkError(
            f"the chat has {count} question{'s' if count != 1 else ''}: give a fork point from 0 to {count}"
        )
    kept: list[ChatMessage] = []
    seen = 0
    for message in history:
        if message.role == "user":
            seen += 1
            if seen > after:
                break
        kept.append(message)
    return kept


def branch_of(parent: SessionData, after: int, branch_id: str) -> SessionData:
    """The branch of `parent` after its question `after`, as a new session `branch_id`."""
    return SessionData(
        id=branch_id,
        history=history_through(parent.history, after),
        pdf_path=parent.pdf_path,
        pdf_removed=parent.pdf_removed,
        last_mode=parent.last_mode,
        last_style=parent.last_style,
        parent_id=parent.id,
        fork_turn=after,
    )


def fork_chat(store: SessionStore, parent: SessionData, after: int) -> SessionData:
    """Make and save the branch of `parent` after its question `after`; it becomes the current
    chat (Session.json names it). Raises ForkError for a fork point outside the chat, OSError if
    it cannot be saved. The parent is read, never written."""
    history_through(parent.history, after)  # the fork point is checked before an id is claimed
    fresh = store.new_session(parent)
    branch = branch_of(parent, after, fresh.id)
    store.save(branch)
    try:
        share_uploads(UploadRegistry(store.archive), parent.id, branch.id)
    except sqlite3.Error:  # not shared: the branch's first turn finds the uploads by content all the same
        pass
    return branch


def fork_stored(store: SessionStore, point: ForkPoint) -> SessionData:
    """`fork_chat` on a chat of the history (raises ForkError if there is no such chat)."""
    try:
        parent = store.archived(point.chat)
    except sqlite3.Error as exc:
        raise ForkError(f"chat {point.chat} cannot be read from the history ({exc})") from exc
    if parent is None:
        raise ForkError(f"there is no chat {point.chat} in the history - `ensemble-tui history` lists them")
    return fork_chat(store, parent, point.after)


def share_uploads(registry: UploadRegistry, parent: str, branch: str) -> None:
    """Note the branch as a user of every upload its parent used: the same files serve both."""
    for upload in registry.all():
        if any(use.session == parent for use in upload.uses):
            registry.used(upload.provider, upload.file_id, branch)


def under_parents(sessions: Sequence[SessionSummary]) -> list[tuple[SessionSummary, int]]:
    """The chats in the history's order (newest first), each branch moved under its parent,
    with its depth (the app's history and `ensemble-tui history` list them so); a branch whose
    parent is not listed (deleted, or never asked anything) keeps its own place."""
    listed = {summary.id for summary in sessions}
    children: dict[str, list[SessionSummary]] = {}
    for summary in sessions:
        if summary.parent is not None and summary.parent in listed and summary.parent != summary.id:
            children.setdefault(summary.parent, []).append(summary)
    ordered: list[tuple[SessionSummary, int]] = []
    placed: set[str] = set()

    def place(summary: SessionSummary, depth: int) -> None:
        if summary.id in placed:
            return
        placed.add(summary.id)
        ordered.append((summary, depth))
        for child in children.get(summary.id, []):
            place(child, depth + 1)

    for summary in sessions:
        if summary.parent is None or summary.parent not in listed:
            place(summary, 0)
    for summary in sessions:  # a loop of parents (a damaged file): still listed
        place(summary, 0)
    return ordered


def branch_lead(depth: int) -> str:
    """What begins a branch's line in a listing, before its fork point: indented one step per
    level under its parent (depth 1: none), then the arrow."""
    return "  " * (depth - 1) + "↳ "
