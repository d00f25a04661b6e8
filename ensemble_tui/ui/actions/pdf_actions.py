"""Choosing, clearing, showing and reading the session's PDF (Ctrl+O, the Attachments pane's
buttons, the dialog, the PDF given on the command line and the palette's "Read the paper"): a
collaborator of the main screen (ui/main_screen.py)."""

from __future__ import annotations

from pathlib import Path

from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.paper.pdf import pdf_info
from ensemble_tui.core.text.paths import display_path
from ensemble_tui.ui.actions.context import AppContext
from ensemble_tui.ui.screens.pdf_picker import pdf_dialog, start_folder


class PdfActions:
    """Keeps the PDF the Attachments pane shows in step with the session."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.path: str | None = None  # the session's PDF, as last shown

    def choose(self) -> None:
        """The dialog opens over the pane in use, which is shown again once it closes."""
        start = start_folder(self.path, Path.cwd(), self.ctx.workspace.starting_pdf)
        self.ctx.app.push_screen(pdf_dialog(start), self._chosen)

    def _chosen(self, path: Path | None) -> None:
        if path is not None:
            self.select(path)

    def select(self, path: str | Path, *, announce: bool = True) -> bool:
        """Check and keep `path` as the session PDF; a bad file is refused with one clear line."""
        ctx = self.ctx
        try:
            info = ctx.workspace.select_pdf(path)
        except (EnsembleError, OSError) as exc:
            ctx.view.attachments.show_error(str(exc))
            ctx.app.notify(str(exc), title="PDF refused", severity="error", markup=False)
            return False
        self.path = str(info.path)
        ctx.view.attachments.show_pdf(info)
        ctx.view.chat.show_paper(info)
        if announce:
            ctx.say(f"PDF selected: {display_path(info.path)}")
        return True

    def clear(self) -> None:
        try:
            self.ctx.workspace.clear_pdf()
        except OSError as exc:
            self.ctx.view.attachments.show_error(f"Cannot save the session: {exc}")
            return
        self.path = None
        self.ctx.view.attachments.show_pdf(None)
        self.ctx.view.chat.show_paper(None)

    def read(self) -> None:
        """The chat's paper in the paper view from its first page, to read or search it (a quote
        mark opens the same view at its quote); without a PDF the view says so."""
        from ensemble_tui.ui.screens.paper import open_passage

        open_passage(self.ctx.app)

    def show(self, path: str | None) -> None:
        """Show a chat's PDF as it is opened; one that cannot be read is said, not refused."""
        attachments = self.ctx.view.attachments
        self.path = path
        chat = self.ctx.view.chat
        if not path:
            attachments.show_pdf(None)
            chat.show_paper(None)
            return
        try:
            info = pdf_info(path)
        except EnsembleError as exc:
            attachments.show_pdf(None)
            chat.show_paper(None)
            attachments.show_error(str(exc))
            self.ctx.add_notice(str(exc), "warning")
            return
        attachments.show_pdf(info)
        chat.show_paper(info)
