"""What the user does with the chat's replies: copy the last one, open one of its links, open
the transcript folder, load earlier messages.

A collaborator of the main screen (ui/main_screen.py). Links open only from here, on the user's request, and only
http(s) ones.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.widget import Widget

from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.ui.actions.context import AppContext
from ensemble_tui.ui.chat_log.chat_view import ChatEntry
from ensemble_tui.ui.chat_log.rendering import http_links, is_http_url


class ReplyActions:
    def __init__(self, ctx: AppContext, folder_opener: Callable[[Path], bool]) -> None:
        self.ctx = ctx
        self.folder_opener = folder_opener

    def last_reply(self) -> ChatMessage | None:
        return next((m for m in reversed(self.ctx.view.chat.log_view.items) if m.role == "assistant"), None)

    def show_earlier(self) -> None:
        self.ctx.show_pane("chat")
        if not self.ctx.view.chat.log_view.load_earlier():
            self.ctx.say("The whole chat is shown.")

    def copy_last_reply(self) -> None:
        reply = self.last_reply()
        if reply is None:
            self.ctx.app.notify("No reply to copy yet.", markup=False, severity="warning")
            return
        self.ctx.app.copy_to_clipboard(reply.text)
        self.ctx.say("Last reply copied to the clipboard.")

    def reply_in_view(self) -> ChatMessage | None:
        """The reply under the mouse, else the one scrolled to (or the question's answer)."""
        hovered = self.ctx.app.mouse_over
        while hovered is not None and not isinstance(hovered, ChatEntry):
            hovered = hovered.parent if isinstance(hovered.parent, Widget) else None
        if isinstance(hovered, ChatEntry) and hovered.message.role == "assistant":
            return hovered.message
        item = self.ctx.view.chat.log_view.item_in_view()
        items = self.ctx.view.chat.log_view.items
        if item is None or item not in items:
            return self.last_reply()
        start = items.index(item)
        return next((m for m in items[start:] if m.role == "assistant"), self.last_reply())

    def copy_reply_in_view(self) -> None:
        """Ctrl+T: copy the reply being read, as its Markdown source."""
        reply = self.reply_in_view()
        if reply is None:
            self.ctx.app.notify("No reply to copy yet.", markup=False, severity="warning")
            return
        self.ctx.app.copy_to_clipboard(reply.text)
        self.ctx.say(f"Reply copied to the clipboard ({len(reply.text):,} characters of Markdown).")

    def copy_code_block(self, reply: ChatMessage, index: int) -> None:
        from ensemble_tui.core.text.code_blocks import fenced_blocks

        blocks = fenced_blocks(reply.text)
        if not 0 <= index < len(blocks):
            return
        self.ctx.app.copy_to_clipboard(blocks[index].code)
        self.ctx.say(f"Code block {index + 1} of {len(blocks)} copied ({blocks[index].title}).")

    def toggle_math(self) -> None:
        """Ctrl+L: mathematics as Unicode text, or the LaTeX the models wrote; copies are always
        the Markdown source."""
        from ensemble_tui.ui.chat_log.rendering import math_rendering, set_math_rendering

        ctx = self.ctx
        set_math_rendering(not math_rendering())
        log = ctx.view.chat.log_view
        log.show(log.items)
        resubmissions = ctx.view.resubmissions.log_view
        resubmissions.show(resubmissions.items)
        for provider in ctx.view.model_providers:
            ctx.view.model_pane(provider).repaint()
        ctx.say("Math shown as text." if math_rendering() else "Math shown as LaTeX, as the models wrote it.")

    def open_link(self) -> None:
        reply = self.last_reply()
        urls = http_links(reply.text, *reply.sources) if reply else []
        if not urls:
            self.ctx.say("The last reply has no http(s) links.")
            return
        from ensemble_tui.ui.screens.links import LinkPicker  # when first used, not at start-up

        self.ctx.app.push_screen(LinkPicker(urls), self._link_chosen)

    def _link_chosen(self, url: str | None) -> None:
        if url and is_http_url(url):
            self.ctx.app.open_url(url)

    def open_transcripts(self) -> None:
        folder = self.ctx.workspace.paths.chats
        opened = self.folder_opener(folder)
        self.ctx.say(f"{'Opened' if opened else 'Transcripts are in'} {folder}")
