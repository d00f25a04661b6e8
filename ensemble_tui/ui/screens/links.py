"""A dialog listing the http(s) links of the last reply; the chosen one is opened.

Links in chat messages are rendered as plain text, so nothing opens by accident; this dialog
is the one way to follow a link, and it offers only http(s) URLs.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ensemble_tui.ui.chat_log.rendering import is_http_url, plain


class LinkPicker(ModalScreen[str | None]):
    """Returns the chosen URL, or None when dismissed."""

    BINDINGS = [Binding("escape", "dismiss_picker", "Close", id="links.close")]

    def __init__(self, urls: list[str]) -> None:
        super().__init__(classes="dialog-screen")
        self.urls = [url for url in urls if is_http_url(url)]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Open a link from the last reply (Enter opens, Esc closes)", classes="dialog-title")
            yield OptionList(*(Option(plain(url), id=str(index)) for index, url in enumerate(self.urls)), id="links")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.urls[int(event.option_id or 0)])

    def action_dismiss_picker(self) -> None:
        self.dismiss(None)
