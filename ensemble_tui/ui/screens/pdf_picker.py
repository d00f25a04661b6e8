"""The PDF picker: where it opens, and the dialog (ui/screens/pdf_file_open.py) made on demand.

The file is checked in the dialog (it exists, it starts with %PDF-) and again by the core when
it is kept, so a file changed in between is still refused with the core's message.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ensemble_tui.ui.screens.pdf_file_open import PdfPicker


def start_folder(current_pdf: str | None, fallback: Path, starting_pdf: Path | None = None) -> Path:
    """The current PDF's folder if it still exists, else `fallback` (the working folder). The
    paper every new chat starts with (`starting_pdf`: the demo's, shipped inside the installed
    package) is not where the user keeps papers: with it, the picker opens on `fallback`."""
    if current_pdf:
        current = Path(current_pdf).expanduser()
        if starting_pdf is not None and current.resolve() == starting_pdf.resolve():
            return fallback
        if current.parent.is_dir():
            return current.parent
    return fallback


def pdf_dialog(location: Path) -> PdfPicker:
    """The dialog. textual-fspicker is imported here, when it is first opened, not at start-up
    (~13 ms of the app's start)."""
    from ensemble_tui.ui.screens.pdf_file_open import PdfPicker

    return PdfPicker(location)
