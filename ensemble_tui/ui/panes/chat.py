"""The Chat pane: the message log, the status line, the question box and the action buttons."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.ui.chat_log.chat_view import MessageLog
from ensemble_tui.ui.widgets.action_bar import ActionBar
from ensemble_tui.ui.widgets.chat_input import ChatInput
from ensemble_tui.ui.widgets.status_bar import StatusBar

EMPTY_HINT = (
    "No messages yet. Type a question below and press Enter, or choose who answers with F12 ChatGPT, "
    "F2 Claude, F3 Gemini, F4 ChatGPT & Gemini, F5 All or F11 Auto; F6-F9 choose how several models deliberate "
    "(aggregator, council, critique & vote, debate). The paper is chosen in Attachments (Ctrl+O). "
    "F1 lists every key."
)


class ChatPane(Vertical):
    """Layout only: the app drives the children through the properties below."""

    def __init__(self, style: Style = Style.AGGREGATE, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Kept, not queried: the app reads the box as it quits too, when the DOM is going away.
        self._log = MessageLog(empty_hint=EMPTY_HINT, id="chat-log")
        self._status = StatusBar(id="status-bar")
        self._input = ChatInput(id="chat-input")
        self._actions = ActionBar(style, id="action-bar")

    def compose(self) -> ComposeResult:
        yield self._log
        yield self._status
        yield self._input
        yield self._actions

    @property
    def log_view(self) -> MessageLog:
        return self._log

    @property
    def status(self) -> StatusBar:
        return self._status

    @property
    def input(self) -> ChatInput:
        return self._input

    @property
    def actions(self) -> ActionBar:
        return self._actions

    def on_key(self, event: events.Key) -> None:
        """Text typed while the chat has the focus goes into the question box, not nowhere."""
        if event.is_printable and event.character and self.screen.focused is self._log:
            event.stop()
            event.prevent_default()
            self._input.focus()
            self._input.insert(event.character)
