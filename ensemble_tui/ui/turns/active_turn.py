"""The one record of the turn on screen (plain data, no Textual), its phase included.

Everything on screen that depends on the turn (the status line, the action buttons, Cancel,
the quit dialog, the garbage collector's schedule, whether the user may send) derives from the
`ActiveTurn` the TurnController holds in its one reactive, never from a flag of its own. Its
`phase` is the turn's phase as the screen has shown it: RUNNING until the reply is shown,
MAPPING while a claim map that came after the reply is drawn (core/turn/handle.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.worker import Worker

    from ensemble_tui.ui.chat_log.vote_view import ReviewOutcome

from ensemble_tui.core.chat.modes import RunMode, Style
from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.turn.handle import TurnPhase


def run_label(mode: RunMode, style: Style) -> str:
    """ "All · Council"; just "All" in the default aggregator style, and just "Claude" for a
    single model, which ignores the style."""
    return f"{mode.label} · {style.label}" if mode.is_multi and style is not Style.AGGREGATE else mode.label


@dataclass(eq=False)  # one run is one record: compared by identity, as a new run must differ
class ActiveTurn:
    """One run: its id (to drop late messages from superseded runs), mode, style and the text sent.

    `text` is what goes back into the input box if the run is cancelled; it is empty for a
    redo or a retry, whose question stays in the chat.

    Where the turn's messages sit is kept by position: the chat and the resubmissions only grow
    at their end while a turn runs, so an index names a message for as long as the turn lasts.
    """

    run_id: int
    mode: RunMode
    text: str
    style: Style = Style.AGGREGATE
    started: float = field(default_factory=time.monotonic)
    worker: Worker[None] | None = None
    input_kept: bool = False  # the engine kept the input in the chat (a reply, or a failure to retry)
    reviews: dict[str, ReviewOutcome] = field(default_factory=dict)  # reviewer -> outcome, in arrival order
    # The chat's length before this turn's messages (its input, then its reply), once the input
    # is recorded; None before that, and once the chat is shown as the core reloaded it.
    chat_from: int | None = None
    shows_input: bool = False  # it added its input at `chat_from` (not a redo or a retry)
    withdrawn: ChatMessage | None = None  # the reply a redo took off the chat, given back on a cancel
    resubmissions_from: int | None = None  # the resubmissions' length before this turn's
    vote_notice: Widget | None = None  # the tally shown while the run goes on
    reuse: dict[str, str] = field(default_factory=dict)  # a restyle's proposals in hand (Engine.run)
    reused_from: int = 0  # the chat's run they come from
    phase: TurnPhase = TurnPhase.RUNNING  # as shown: MAPPING once the reply is in and its map still out
    reply: ChatMessage | None = None  # the committed reply, once shown (its claim line goes under it)
    done_line: str = ""  # the status line the reply was shown with ("Reply complete (All, 12s).")

    @property
    def label(self) -> str:
        return run_label(self.mode, self.style)

    @property
    def reply_at(self) -> int | None:
        """Where its reply goes in the chat (None: the chat shows what the core holds)."""
        return None if self.chat_from is None else self.chat_from + self.shows_input

    @property
    def running(self) -> bool:
        """Its reply is still under way (a user's send would be refused)."""
        return self.phase is TurnPhase.RUNNING

    def elapsed(self) -> float:
        return time.monotonic() - self.started
