"""What the user does with the chat's replies: copy the last one, open one of its links, open
the transcript folder, load earlier messages.

A mixin of EnsembleApp (like TurnFlow and ArchiveFlow), so the app module stays about layout.
Links open only from here, on the user's request, and only http(s) ones.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ensemble_tui.core.session import ChatMessage
from ensemble_tui.ui.rendering import http_links, is_http_url
from ensemble_tui.ui.screens.links import LinkPicker

if TYPE_CHECKING:
    from textual.app import App

    from ensemble_tui.core.workspace import Workspace
    from ensemble_tui.ui.panes.chat import ChatPane

    _Base = App[int]
else:
    _Base = object


class ReplyActions(_Base):
    if TYPE_CHECKING:  # provided by EnsembleApp
        workspace: Workspace
        chat: ChatPane
        folder_opener: Callable[[Path], bool]

        def show_pane(self, pane_id: str) -> None: ...

    def last_reply(self) -> ChatMessage | None:
        return next((m for m in reversed(self.chat.log_view.items) if m.role == "assistant"), None)

    def action_show_earlier(self) -> None:
        self.show_pane("chat")
        if not self.chat.log_view.load_earlier():
            self.notify("The whole chat is shown.", markup=False)

    def action_copy_last_reply(self) -> None:
        reply = self.last_reply()
        if reply is None:
            self.notify("No reply to copy yet.", markup=False, severity="warning")
            return
        self.copy_to_clipboard(reply.text)
        self.notify("Last reply copied to the clipboard.", markup=False)

    def action_open_link(self) -> None:
        reply = self.last_reply()
        urls = http_links(reply.text, *reply.sources) if reply else []
        if not urls:
            self.notify("The last reply has no http(s) links.", markup=False)
            return
        self.push_screen(LinkPicker(urls), self._link_chosen)

    def _link_chosen(self, url: str | None) -> None:
        if url and is_http_url(url):
            self.open_url(url)

    def action_open_transcripts(self) -> None:
        folder = self.workspace.paths.chats
        opened = self.folder_opener(folder)
        self.notify(f"{'Opened' if opened else 'Transcripts are in'} {folder}", markup=False, timeout=10)
