"""The Attachments pane: the session PDF (path, size, pages) and the buttons to change it."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Static

from ensemble_tui.core.pdf import PdfInfo
from ensemble_tui.ui.rendering import display_path, human_size, plain

HINT = (
    "Every model reads this PDF with each question. Only its path is kept, for this chat; "
    "a new chat starts without one. Press Select PDF (or Ctrl+O) to browse; a path can be typed there."
)


def describe_pdf(info: PdfInfo) -> Text:
    pages = f"{info.pages} pages" if info.pages else "pages unknown"
    text = Text(end="")
    text.append("Path:  ", style="bold")
    text.append_text(plain(display_path(info.path)))
    text.append("\nSize:  ", style="bold")
    text.append(human_size(info.size_bytes))
    text.append("\nPages: ", style="bold")
    text.append(pages)
    return text


class AttachmentsPane(Vertical):
    class PickRequested(Message):
        """The user wants to choose a PDF."""

    class ClearRequested(Message):
        """The user wants to continue without a PDF."""

    def compose(self) -> ComposeResult:
        yield Static(Text("Session PDF", style="bold"), classes="pane-title")
        yield Static(Text("No PDF selected."), id="pdf-info")
        yield Static("", id="pdf-error")
        with Horizontal(id="pdf-buttons"):
            yield Button("Select PDF…", id="select-pdf", variant="primary")
            yield Button("Remove", id="clear-pdf")
        yield Static(plain(HINT), classes="pane-hint")

    @on(Button.Pressed, "#select-pdf")
    def _select_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.PickRequested())

    @on(Button.Pressed, "#clear-pdf")
    def _clear_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.ClearRequested())

    def show_pdf(self, info: PdfInfo | None) -> None:
        self.query_one("#pdf-info", Static).update(describe_pdf(info) if info else Text("No PDF selected."))
        self.query_one("#clear-pdf", Button).disabled = info is None
        self.show_error(None)

    def show_error(self, message: str | None) -> None:
        error = self.query_one("#pdf-error", Static)
        error.update(plain(f"✖ {message}") if message else "")
        error.display = bool(message)

    @property
    def error_text(self) -> str:
        return str(self.query_one("#pdf-error", Static).content)
