"""The Attachments pane: the session PDF (path, size, pages) and the buttons to change it.

The app mounts this pane lazily (after the first frame) but tells it about the PDF at start, so
`show_pdf` and `show_error` record what to show and the pane paints it once it is mounted.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Static

from ensemble_tui.core.paper.pdf import PdfInfo
from ensemble_tui.core.text.paths import display_path
from ensemble_tui.ui.chat_log.rendering import human_size, plain


def hint(starting_pdf: Path | None, select_key: str = "Ctrl+O") -> str:
    """The pane's help line; a new chat starts with `starting_pdf` where there is one (the demo's
    paper); `select_key`: the key that opens the picker, as Keymap.json maps it."""
    start = f"starts with {starting_pdf.name}" if starting_pdf is not None else "starts without one"
    return (
        f"Every model reads this PDF with each question. Only its path is kept, for this chat; a new chat "
        f"{start}. Press Select PDF (or {select_key}) to browse; a path can be typed there."
    )


def describe_pdf(info: PdfInfo) -> Text:
    pages = str(info.pages) if info.pages else "unknown"
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

    def __init__(self, *, select_key: str = "Ctrl+O", id: str | None = None) -> None:
        super().__init__(id=id)
        self.select_key = select_key  # the picker's key, named in the hint
        self._info: PdfInfo | None = None
        self._error: str | None = None
        self._can_paint = False  # set on mount
        # Held here, not queried: a pane mounted as the app quits may never get its children.
        self._pdf_info = Static(Text("No PDF selected."), id="pdf-info")
        self._pdf_error = Static("", id="pdf-error")
        self._clear_button = Button("Remove", id="clear-pdf")

    def compose(self) -> ComposeResult:
        yield Static(Text("Session PDF", style="bold"), classes="pane-title")
        yield self._pdf_info
        yield self._pdf_error
        with Horizontal(id="pdf-buttons"):
            yield Button("Select PDF…", id="select-pdf", variant="primary")
            yield self._clear_button
        workspace = getattr(self.app, "workspace", None)  # the app's; read once, for the line below
        yield Static(plain(hint(getattr(workspace, "starting_pdf", None), self.select_key)), classes="pane-hint")

    @on(Button.Pressed, "#select-pdf")
    def _select_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.PickRequested())

    @on(Button.Pressed, "#clear-pdf")
    def _clear_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.ClearRequested())

    def on_mount(self) -> None:
        self._can_paint = True
        self._paint_pdf()
        self._paint_error()

    def show_pdf(self, info: PdfInfo | None) -> None:
        self._info = info
        if self._can_paint:
            self._paint_pdf()
        self.show_error(None)

    def show_error(self, message: str | None) -> None:
        self._error = message
        if self._can_paint:
            self._paint_error()

    @property
    def error_text(self) -> str:
        """The error line as shown ("" when there is none), painted or not yet."""
        return self._error_line().plain if self._error else ""

    def _paint_pdf(self) -> None:
        info = self._info
        self._pdf_info.update(describe_pdf(info) if info else Text("No PDF selected."))
        self._clear_button.disabled = info is None

    def _paint_error(self) -> None:
        self._pdf_error.update(self._error_line() if self._error else "")
        self._pdf_error.display = bool(self._error)

    def _error_line(self) -> Text:
        return plain(f"✖ {self._error}")
