"""Choosing, clearing and showing the session's PDF (Ctrl+O, the Attachments pane's buttons, the
dialog and the PDF given on the command line): a collaborator of EnsembleApp."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.paper.pdf import pdf_info
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.chat_log.chat_view import NoticeKind
from ensemble_tui.ui.chat_log.rendering import display_path
from ensemble_tui.ui.panes.attachments import AttachmentsPane
from ensemble_tui.ui.screens.pdf_picker import pdf_dialog, start_folder


class PdfHost(Protocol):
    """What choosing a PDF needs of the app."""

    workspace: Workspace

    @property
    def attachments(self) -> AttachmentsPane: ...
    def say(self, text: str) -> None: ...
    def add_notice(self, text: str, kind: NoticeKind = "info") -> None: ...
    def notify(self, message: str, **kwargs: Any) -> None: ...
    def push_screen(self, screen: Any, callback: Callable[[Path | None], None]) -> Any: ...


class PdfActions:
    """Keeps the PDF the Attachments pane shows in step with the session."""

    def __init__(self, host: PdfHost) -> None:
        self.host = host
        self.path: str | None = None  # the session's PDF, as last shown

    def choose(self) -> None:
        """The dialog opens over the pane in use, which is shown again once it closes."""
        start = start_folder(self.path, Path.cwd())
        self.host.push_screen(pdf_dialog(start), self._chosen)

    def _chosen(self, path: Path | None) -> None:
        if path is not None:
            self.select(path)

    def select(self, path: str | Path, *, announce: bool = True) -> bool:
        """Check and keep `path` as the session PDF; a bad file is refused with one clear line."""
        host = self.host
        try:
            info = host.workspace.select_pdf(path)
        except (EnsembleError, OSError) as exc:
            host.attachments.show_error(str(exc))
            host.notify(str(exc), title="PDF refused", severity="error", markup=False)
            return False
        self.path = str(info.path)
        host.attachments.show_pdf(info)
        if announce:
            host.say(f"PDF selected: {display_path(info.path)}")
        return True

    def clear(self) -> None:
        try:
            self.host.workspace.clear_pdf()
        except OSError as exc:
            self.host.attachments.show_error(f"Cannot save the session: {exc}")
            return
        self.path = None
        self.host.attachments.show_pdf(None)

    def show(self, path: str | None) -> None:
        """Show a chat's PDF as it is opened; one that cannot be read is said, not refused."""
        attachments = self.host.attachments
        self.path = path
        if not path:
            attachments.show_pdf(None)
            return
        try:
            attachments.show_pdf(pdf_info(path))
        except EnsembleError as exc:
            attachments.show_pdf(None)
            attachments.show_error(str(exc))
            self.host.add_notice(str(exc), "warning")
