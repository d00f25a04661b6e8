"""The Chat pane: the message log, the status line, the question box and the action buttons."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical

from ensemble_tui.core.modes import Style
from ensemble_tui.ui.chat_view import MessageLog
from ensemble_tui.ui.widgets.action_bar import ActionBar
from ensemble_tui.ui.widgets.chat_input import ChatInput
from ensemble_tui.ui.widgets.status_bar import StatusBar

EMPTY_HINT = (
    "No messages yet. Type a question below and press Enter, or F1-F5 to choose who answers; F6-F9 choose "
    "how several models deliberate (aggregator, council, critique & vote, debate). "
    "The paper is chosen in Attachments (Ctrl+O)."
)


class ChatPane(Vertical):
    """Layout only: the app drives the children through the properties below."""

    def __init__(self, style: Style = Style.AGGREGATE, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._initial_style = style

    def compose(self) -> ComposeResult:
        yield MessageLog(empty_hint=EMPTY_HINT, id="chat-log")
        yield StatusBar(id="status-bar")
        yield ChatInput(id="chat-input")
        yield ActionBar(self._initial_style, id="action-bar")

    @property
    def log_view(self) -> MessageLog:
        return self.query_one("#chat-log", MessageLog)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def input(self) -> ChatInput:
        return self.query_one(ChatInput)

    @property
    def actions(self) -> ActionBar:
        return self.query_one(ActionBar)
