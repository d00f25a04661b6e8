"""What the app remembers about the run in flight (plain data, no Textual)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.worker import Worker

    from ensemble_tui.ui.chat_log.vote_view import ReviewOutcome

from ensemble_tui.core.chat.modes import RunMode, Style
from ensemble_tui.core.chat.session import ChatMessage, Resubmission


def run_label(mode: RunMode, style: Style) -> str:
    """ "All · Council"; just "All" in the default aggregator style, and just "Claude" for a
    single model, which ignores the style."""
    return f"{mode.label} · {style.label}" if mode.is_multi and style is not Style.AGGREGATE else mode.label


@dataclass
class ActiveTurn:
    """One run: its id (to drop late messages from superseded runs), mode, style and the text sent.

    `text` is what goes back into the input box if the run is cancelled; it is empty for a
    redo or a retry, whose question stays in the chat.
    """

    run_id: int
    mode: RunMode
    text: str
    style: Style = Style.AGGREGATE
    started: float = field(default_factory=time.monotonic)
    worker: Worker[None] | None = None
    input_kept: bool = False  # the engine kept the input in the chat (a reply, or a failure to retry)
    reviews: dict[str, ReviewOutcome] = field(default_factory=dict)  # reviewer -> outcome, in arrival order
    resubmissions: list[Resubmission] = field(default_factory=list)  # shown while the run is under way
    shown_input: ChatMessage | None = None  # the input it showed in the chat (InputRecorded)
    withdrawn: ChatMessage | None = None  # the reply a redo took off the chat (InputRecorded)
    vote_notice: Widget | None = None  # the tally shown while the run goes on

    @property
    def label(self) -> str:
        return run_label(self.mode, self.style)

    def elapsed(self) -> float:
        return time.monotonic() - self.started
