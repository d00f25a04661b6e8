"""The PDF picker: textual-fspicker's FileOpen, filtered to PDFs, returning a Path or None.

FileOpen handles keyboard and mouse navigation, typed paths (with completion) and the hidden
file toggle; we only choose the start folder and the filters. The file is checked by the core
after it is chosen, so a file that is not a PDF is refused with the core's message.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual_fspicker import FileOpen


def is_pdf_name(path: Path) -> bool:
    return path.suffix.lower() == ".pdf"


def start_folder(current_pdf: str | None, fallback: Path) -> Path:
    """The current PDF's folder if it still exists, else `fallback` (the working folder)."""
    if current_pdf:
        folder = Path(current_pdf).expanduser().parent
        if folder.is_dir():
            return folder
    return fallback


def pdf_dialog(location: Path) -> FileOpen:
    """The dialog. textual-fspicker is imported here, when it is first opened, not at start-up
    (~13 ms of the app's start)."""
    from textual_fspicker import FileOpen, Filters

    return FileOpen(
        location,
        title="Select a PDF",
        open_button="Select",
        filters=Filters(("PDF files", is_pdf_name), ("All files", lambda _path: True)),
        must_exist=True,
    )
