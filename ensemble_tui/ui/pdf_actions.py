"""Choosing and clearing the session's PDF: a mixin of EnsembleApp (the key, the Attachments
pane's buttons and the dialog)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.ui.chat_log.rendering import display_path
from ensemble_tui.ui.panes.attachments import AttachmentsPane
from ensemble_tui.ui.screens.pdf_picker import pdf_dialog, start_folder

if TYPE_CHECKING:
    from textual.app import App

    from ensemble_tui.core.workspace import Workspace

    _Base = App[int]
else:
    _Base = object



class PdfActions(_Base):
    """Ctrl+O, the Attachments pane's Choose and Clear, and the PDF given on the command line."""

    if TYPE_CHECKING:  # provided by EnsembleApp
        workspace: Workspace
        pdf_path: str | None

        @property
        def attachments(self) -> AttachmentsPane: ...
        def show_pane(self, pane_id: str) -> None: ...
        def say(self, text: str) -> None: ...

    def action_select_pdf(self) -> None:
        """The dialog opens over the pane in use, which is shown again once it closes."""
        start = start_folder(self.pdf_path, Path.cwd())
        self.push_screen(pdf_dialog(start), self._pdf_chosen)

    def _pdf_chosen(self, path: Path | None) -> None:
        if path is not None:
            self.select_pdf_path(path)

    def select_pdf_path(self, path: str | Path, *, announce: bool = True) -> bool:
        """Check and keep `path` as the session PDF; a bad file is refused with one clear line."""
        try:
            info = self.workspace.select_pdf(path)
        except (EnsembleError, OSError) as exc:
            self.attachments.show_error(str(exc))
            self.notify(str(exc), title="PDF refused", severity="error", markup=False)
            return False
        self.pdf_path = str(info.path)
        self.attachments.show_pdf(info)
        if announce:
            self.say(f"PDF selected: {display_path(info.path)}")
        return True

    def action_clear_pdf(self) -> None:
        try:
            self.workspace.clear_pdf()
        except OSError as exc:
            self.attachments.show_error(f"Cannot save the session: {exc}")
            return
        self.pdf_path = None
        self.attachments.show_pdf(None)

    def on_attachments_pane_pick_requested(self, event: AttachmentsPane.PickRequested) -> None:
        self.action_select_pdf()

    def on_attachments_pane_clear_requested(self, event: AttachmentsPane.ClearRequested) -> None:
        self.action_clear_pdf()

