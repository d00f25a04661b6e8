"""The chat session: official history, per-model last outputs, resubmissions, cost, PDF path.

How it is saved and restored is `session_store`'s job; the Markdown transcript in `Chats/`
holds user inputs and final replies only (`render_transcript`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ensemble_tui.core.chat.provenance import Provenance
from ensemble_tui.core.provider import Message
from ensemble_tui.core.text.sanitize import inert_images

SESSION_ID_FORMAT = "%Y-%m-%d_%H-%M-%S"


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Literal["user", "assistant"]
    text: str  # what later turns send to models: never a model's or maker's name beyond the reply's own
    sources: list[str] = Field(default_factory=list)
    provenance: Provenance | None = None  # who wrote a reply (shown, never sent)
    checks: dict[str, Any] | None = None  # a reply's quotes against the PDF (core/paper/quotes.py's record)
    # Why the turn that asked this input failed, one line (the budget stop, say): shown under
    # an input left without a reply, after a restart as before it; never sent to a model.
    failure: str | None = None


class ModelOutput(BaseModel):
    """What a model last produced as proposer or single model, and the query that caused it."""

    model_config = ConfigDict(extra="ignore")

    query: str
    text: str
    model: str = ""
    note: str = ""  # e.g. that this provider got the PDF as extracted text
    checks: dict[str, Any] | None = None  # its quotes against the PDF (core/paper/quotes.py's record)


class Resubmission(BaseModel):
    """One synthesis request the aggregator sent back: the proposals and its remarks."""

    model_config = ConfigDict(extra="ignore")

    iteration: int
    text: str
    checks: dict[str, Any] | None = None  # the proposals' quotes in it against the PDF (quotes.py's record)


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
    pdf_removed: bool = False  # the user took the chat's PDF away: the demo's paper is not put back
    last_mode: str | None = None
    last_style: str | None = None
    # A branch (core/store/fork.py): the chat it was made from and how many of that chat's
    # questions it starts with. Set when the branch is made, never changed after.
    parent_id: str | None = None
    fork_turn: int | None = None
    # The reply the last turn's redo replaced, kept so that it can be brought back (`brought_back`)
    # while no newer turn exists; a new input clears it.
    replaced: ChatMessage | None = None

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


def with_failure(history: list[ChatMessage], reason: str | None) -> list[ChatMessage]:
    """`history` with its last message, if it is an input, marked as failed for `reason` (None:
    unmarked, its retry answered). A new message, so that a save stores the change."""
    last = history[-1] if history else None
    if last is None or last.role != "user" or last.failure == reason:
        return history
    return [*history[:-1], last.model_copy(update={"failure": reason})]


def brought_back(session: SessionData) -> SessionData | None:
    """`session` with the reply a redo replaced back in place of the redo's own, which is kept
    as the replaced one in turn (so nothing is lost); None if there is none to bring back."""
    if session.replaced is None or not session.history or session.history[-1].role != "assistant":
        return None
    current = session.history[-1]
    return session.model_copy(update={"history": [*session.history[:-1], session.replaced], "replaced": current})


def answered_turns(history: Sequence[ChatMessage]) -> tuple[Message, ...]:
    """`history` as model calls read it: answered user/reply pairs only, in order.

    A user input left without a reply (its turn failed) is not sent to models, so the
    conversation they see always alternates cleanly.
    """
    turns: list[Message] = []
    for index, message in enumerate(history):
        if message.role == "user":
            following = history[index + 1] if index + 1 < len(history) else None
            if following is not None and following.role == "assistant":
                turns.append(Message("user", message.text))
        else:
            turns.append(Message("assistant", message.text))
    return tuple(turns)


def fork_phrase(after: int) -> str:
    """Where a branch left its parent, as the history and the exports say it."""
    return f"branched after question {after}" if after else "branched before question 1"


def render_transcript(session: SessionData) -> str:
    """The Markdown transcript: user inputs and final replies only (its head, then one block a
    message: core/store/transcript.py renders each block once and reuses it)."""
    return join_transcript(transcript_head(session), [transcript_block(message) for message in session.history])


def transcript_head(session: SessionData) -> str:
    """The transcript's first lines: the chat's id, the chat it branched from, its PDF."""
    parts = [f"# Chat {session.id}"]
    if session.parent_id is not None:
        parts.append(f"Branch of chat `{session.parent_id}`, {fork_phrase(session.fork_turn or 0)}.")
    if session.pdf_path:
        parts.append(f"PDF: `{session.pdf_path}`")
    return "\n\n".join(parts)


def transcript_block(message: ChatMessage) -> str:
    """One message's part of the transcript; it depends on that message alone."""
    heading = "## You" if message.role == "user" else "## Reply"
    parts = [f"{heading}\n\n{inert_images(message.text.strip())}"]  # a previewer loads nothing
    if message.provenance is not None:
        parts.append(f"*{message.provenance.line}*")
    if message.sources:
        parts.append("Sources:\n" + "\n".join(f"- <{url}>" for url in message.sources))
    return "\n\n".join(parts)


def join_transcript(head: str, blocks: Sequence[str]) -> str:
    return "\n\n".join([head, *blocks]) + "\n"


def unchanged_prefix(before: Sequence[Any], after: Sequence[Any]) -> int:
    """How many leading items two versions of a session list share. Items are never changed
    once made (only added, removed or replaced), so identity settles almost every comparison."""
    limit = min(len(before), len(after))
    index = 0
    while index < limit and (before[index] is after[index] or before[index] == after[index]):
        index += 1
    return index


# The session's lists that only grow at their end, so each is stored one item per row (see
# session_store): a save writes what was added, not the whole chat.
LISTS: dict[str, type[BaseModel]] = {"history": ChatMessage, "resubmissions": Resubmission}


@cache
def _list_adapter(name: str) -> TypeAdapter[list[Any]]:
    return TypeAdapter(list[LISTS[name]])  # type: ignore[valid-type]


def with_items(session: SessionData, items: Mapping[str, Sequence[str]]) -> SessionData:
    """`session` with the lists given as their items' JSON put in; other lists stay as they are.
    Each list is validated in one pass, which at 2000 messages is ~10x faster than per item."""
    lists = {name: _list_adapter(name).validate_json("[" + ",".join(texts) + "]") for name, texts in items.items()}
    return session.model_copy(update=lists)
