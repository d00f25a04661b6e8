"""textual-fspicker's FileOpen, fitted to this app: typing goes to the path box, one Enter chooses.

FileOpen (kept for its navigation, typed paths with completion and filters) needed three
changes here: keys typed while the list has the focus went nowhere (the path box needed a Tab
first), Enter on a file only copied its name into the box (a second Enter chose it), and errors
were written into the dialog's bottom border, cut at 80 columns. This dialog sends typed
characters to the path box, chooses a listed file with one Enter, starts on the folder's first
PDF, and checks a choice (exists, is a PDF) before closing, with the reason on its own line.
"""

from __future__ import annotations

from pathlib import Path

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static
from textual_fspicker import FileOpen, Filters
from textual_fspicker.base_dialog import Dialog, InputBar
from textual_fspicker.parts import CurrentDirectory, DirectoryNavigation

from ensemble_tui.core.errors import PdfError
from ensemble_tui.core.paper.pdf import check_pdf
from ensemble_tui.core.text.paths import display_path
from ensemble_tui.ui.chat_log.rendering import plain

HINT = "Type a path and press Enter · or pick: ↑/↓, Enter · Backspace: parent folder"


def is_pdf_name(path: Path) -> bool:
    return path.suffix.lower() == ".pdf"


def refusal(path: Path) -> str | None:
    """Why `path` cannot be the session PDF, in one line; None when it can."""
    if not path.exists():
        return f"Nothing at {display_path(path)}: check the name, or pick a PDF from the list."
    try:
        check_pdf(path)
    except PdfError as exc:
        return str(exc)
    return None


def folder_name(folder: Path) -> str:
    """The folder as the header shows it: the home folder itself is `~`, not `~/.`."""
    return "~" if folder.expanduser().resolve() == Path.home().resolve() else display_path(folder)


NO_PDFS = "No PDFs here: type a path, or Backspace for the parent folder."


class FolderLine(CurrentDirectory):
    """The folder shown, with the home folder as "~" (as the app writes paths everywhere else),
    its start cut with "…" when it is too long."""

    def _watch_current_directory(self) -> None:
        folder = "" if self.current_directory is None else folder_name(self.current_directory)
        width = self.content_size.width or self.size.width
        if width and len(folder) > width:
            folder = "…" + folder[-(width - 1) :]
        self.update(plain(folder))


class PdfPicker(FileOpen):
    """Returns the chosen PDF's Path, or None when dismissed."""

    DEFAULT_CSS = """
    PdfPicker Dialog {
        width: 100%;
        max-width: 110;
        height: 100%;
        max-height: 36;
    }
    PdfPicker .pdf-picker-hint {
        color: $text-muted;
        padding: 0 1;
    }
    PdfPicker #pdf-picker-message {
        color: $text-error;
        padding: 0 1;
        display: none;
    }
    PdfPicker #pdf-picker-message.-shown {
        display: block;
    }
    PdfPicker #pdf-picker-empty {
        color: $text-muted;
        padding: 0 1;
    }
    PdfPicker DirectoryNavigation {
        height: 1fr;
        min-height: 3;
    }
    PdfPicker InputBar {
        padding: 1 1 0 0;
        height: auto;
    }
    PdfPicker InputBar Input {
        width: 1fr;
    }
    PdfPicker InputBar Select {
        width: 17;
    }
    PdfPicker InputBar Button {
        width: auto;
        min-width: 10;
    }
    """

    BINDINGS = [Binding("down", "focus_list", "Back to the list", show=False)]

    def __init__(self, location: Path) -> None:
        super().__init__(
            location,
            title="Select a PDF",
            open_button="Select",
            filters=Filters(("PDF files", is_pdf_name), ("All files", lambda _path: True)),
            must_exist=True,
        )
        self._highlight_first_pdf = True

    def _header_area(self) -> ComposeResult:
        """FileOpen's folder line (FileOpen finds it by its type), then how to choose."""
        yield FolderLine()
        yield Static(HINT, classes="pdf-picker-hint")

    def on_mount(self) -> None:
        self.query_one(Dialog).mount(Static(id="pdf-picker-message"), before=self.query_one(InputBar))
        empty = Static(plain(NO_PDFS), id="pdf-picker-empty")
        empty.display = False
        self.query_one(Dialog).mount(empty, before=self.listing)
        # Input selects its text when focused, and the next key typed would replace it: the
        # first character of a path typed from the list arrives just before that focus.
        self.path_box.select_on_focus = False

    @property
    def path_box(self) -> Input:
        return self.query_one(InputBar).query_one(Input)

    @property
    def listing(self) -> DirectoryNavigation:
        return self.query_one(DirectoryNavigation)

    @property
    def message(self) -> str:
        """The reason shown for the last refusal ("" when none is shown)."""
        widget = self.query("#pdf-picker-message")
        return str(widget.first(Static).content) if widget else ""

    def _set_error(self, message: str = "") -> None:
        """Say what went wrong on the dialog's own line (FileOpen used its border, cut short)."""
        widgets = self.query("#pdf-picker-message")
        if widgets:
            line = widgets.first(Static)
            line.update(plain(message))
            line.set_class(bool(message), "-shown")

    def on_key(self, event: events.Key) -> None:
        """A character typed while the list has the focus starts (or continues) a typed path.
        Any key pressed in the list makes the highlight the user's (no move to the first PDF)."""
        if self.focused is self.listing:
            self._highlight_first_pdf = False
        if event.is_printable and event.character and self.focused is self.listing:
            event.stop()
            event.prevent_default()
            box = self.path_box
            box.focus()
            box.insert_text_at_cursor(event.character)

    def action_focus_list(self) -> None:
        self.listing.focus()

    @on(DirectoryNavigation.Changed)
    def _folder_changed(self) -> None:
        self._highlight_first_pdf = True

    @on(DirectoryNavigation.Highlighted)
    def _start_on_a_pdf(self, event: DirectoryNavigation.Highlighted) -> None:
        """Until the user moves in the list, keep the highlight on the folder's first file, so
        Enter chooses it. FileOpen lists a folder more than once as it opens (".." alone, then
        the files, then again through the filter), each time highlighting its first entry."""
        listing = self.listing
        first = next(
            (
                index
                for index in range(listing.option_count)
                if isinstance(location := getattr(listing.get_option_at_index(index), "location", None), Path)
                and location.is_file()
            ),
            None,
        )
        for empty in self.query("#pdf-picker-empty"):  # a folder without one says so
            empty.display = first is None
        if self._highlight_first_pdf and first is not None and listing.highlighted != first:
            listing.highlighted = first

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self._highlight_first_pdf = False  # a click picks its own entry

    @on(DirectoryNavigation.Selected)
    def _choose_listed_file(self, event: DirectoryNavigation.Selected) -> None:
        """Enter (or a click) on a file chooses it at once (FileOpen copied it into the box)."""
        event.stop()
        event.prevent_default()
        if self._should_return(event.path):
            self.dismiss(event.path)

    def _should_return(self, candidate: Path) -> bool:
        reason = refusal(candidate)
        if reason is not None:
            self._set_error(reason)
            return False
        return True
