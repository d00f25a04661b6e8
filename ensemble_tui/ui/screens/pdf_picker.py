"""The PDF picker: where it opens, and the dialog (ui/screens/pdf_file_open.py) made on demand.

The file is checked in the dialog (it exists, it starts with %PDF-) and again by the core when
it is kept, so a file changed in between is still refused with the core's message.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ensemble_tui.ui.screens.pdf_file_open import PdfPicker


def start_folder(current_pdf: str | None, fallback: Path) -> Path:
    """The current PDF's folder if it still exists, else `fallback` (the working folder)."""
    if current_pdf:
        folder = Path(current_pdf).expanduser().parent
        if folder.is_dir():
            return folder
    return fallback


def pdf_dialog(location: Path) -> PdfPicker:
    """The dialog. textual-fspicker is imported here, when it is first opened, not at start-up
    (~13 ms of the app's start)."""
    from ensemble_tui.ui.screens.pdf_file_open import PdfPicker

    return PdfPicker(location)
