"""The Chat pane: the paper's line, the message log, the status line, the question box and the
action buttons."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.paper.pdf import PdfInfo
from ensemble_tui.ui.bindings import HELP_ID, key_span, shown_key
from ensemble_tui.ui.chat_log.chat_view import MessageLog
from ensemble_tui.ui.chat_log.rendering import plain
from ensemble_tui.ui.widgets.action_bar import ActionBar
from ensemble_tui.ui.widgets.chat_input import ChatInput
from ensemble_tui.ui.widgets.status_bar import StatusBar


def empty_hint(keymap: Mapping[str, str]) -> str:
    """The empty chat's welcome, naming each key as Keymap.json maps it (it named the default
    keys whatever the keymap said)."""
    modes = [f"{key} {mode.label}" for mode in Mode if (key := shown_key(f"mode.{mode.value}", keymap))]
    styles = key_span([shown_key(f"style.{style.value}", keymap) for style in Style])
    return (
        f"No messages yet. Type a question below and press Enter, or choose who answers with "
        f"{key_span(modes, 'or')}; {styles} choose how several models deliberate (aggregator, council, "
        f"critique & vote, debate). The paper is chosen in Attachments ({shown_key('pdf.select', keymap)}). "
        f"{shown_key(HELP_ID, keymap)} lists every key."
    )


def paper_line(info: PdfInfo) -> Text:
    """The line naming the chat's paper: its file name and pages (the path is in Attachments).
    The name is the user's file's: shown as plain text, never markup."""
    pages = f"{info.pages} page{'s' if info.pages != 1 else ''}" if info.pages else "pages unknown"
    line = Text("Paper: ", style="bold", end="")
    line.append_text(plain(info.path.name))
    line.append(f" · {pages}")
    return line


class ChatPane(Vertical):
    """Layout only: the app drives the children through the properties below."""

    DEFAULT_CSS = """
    ChatPane #chat-paper {
        height: 1;
        padding: 0 1;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, style: Style = Style.AGGREGATE, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Kept, not queried: the app reads the box as it quits too, when the DOM is going away.
        self._paper = Static("", id="chat-paper")  # which paper the chat reads (issue 35 polish)
        self._paper.display = False
        self._log = MessageLog(empty_hint=empty_hint({}), id="chat-log")
        self._status = StatusBar(id="status-bar")
        self._input = ChatInput(id="chat-input")
        self._actions = ActionBar(style, id="action-bar")

    def compose(self) -> ComposeResult:
        yield self._paper
        yield self._log
        yield self._status
        yield self._input
        yield self._actions

    def show_paper(self, info: PdfInfo | None) -> None:
        """Name the chat's paper on the pane's first line; no line without one."""
        self._paper.update(paper_line(info) if info is not None else "")
        self._paper.display = info is not None

    @property
    def paper_text(self) -> str:
        """The paper's line as shown ("" when the chat has no paper)."""
        return str(self._paper.content) if self._paper.display else ""

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

    def show_keys(self, keymap: Mapping[str, str]) -> None:
        """Name the keys as Keymap.json maps them: in the buttons' tooltips, and the claim map's
        key under each reply's summary line."""
        self._actions.show_keys(keymap)
        self._log.map_key = shown_key("claims.open", keymap)
        self._log.empty_hint = empty_hint(keymap)

    def on_key(self, event: events.Key) -> None:
        """Text typed while the chat has the focus goes into the question box, not nowhere."""
        if event.is_printable and event.character and self.screen.focused is self._log:
            event.stop()
            event.prevent_default()
            self._input.focus()
            self._input.insert(event.character)
