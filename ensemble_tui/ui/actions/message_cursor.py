"""What the message cursor does (issue 32 §2 and §3): edit and resend a question, fork the chat
at it, copy a message, open a reply's first checked quote in the paper view.

A collaborator of the main screen (ui/main_screen.py). The cursor itself (which message, its keys) is the chat log's
(ui/chat_log/chat_view.py); a branch is made by core/store/fork.py. "Edit and resend" makes
nothing at once: it puts the question in the box and remembers where the branch goes, and the
branch is made when that text is sent (`branch_before_send`), so a question edited and left
unsent leaves no empty chat behind, and the original chat is never changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ensemble_tui.core.chat.session import ChatMessage, fork_phrase
from ensemble_tui.ui.actions.context import AppContext


@dataclass(frozen=True)
class PendingEdit:
    """A question being edited: sending from chat `chat` makes a branch after question `after`."""

    chat: str
    after: int


class MessageCursor:
    def __init__(self, ctx: AppContext, show_session: Callable[[], None], busy: Callable[[], bool]) -> None:
        """`show_session` paints the branch once made; `busy`: a reply is under way (the chat
        cannot change under it)."""
        self.ctx = ctx
        self.show_session = show_session
        self.busy = busy
        self.pending: PendingEdit | None = None

    def start(self) -> None:
        """Up in an empty box, or the action's key: the cursor on the last message."""
        ctx = self.ctx
        ctx.show_pane("chat")
        if not ctx.view.chat.log_view.start_cursor():
            ctx.say("No messages yet: the cursor needs a question or a reply to stand on.")

    def leave(self) -> None:
        self.ctx.view.chat.input.focus()

    def act(self, action: str, index: int, message: ChatMessage) -> None:
        """An action asked on the message under the cursor."""
        if action == "copy":
            self.copy(message)
        elif action == "passage":
            self.open_passage(message)
        elif action == "fork":  # on a reply, as on its question: the branch ends with that turn
            self.fork_here(index)
        elif message.role != "user":
            self.ctx.say("Edit acts on a question: move the cursor up to it.")
        elif action == "edit":
            self.edit(index, message)

    def open_passage(self, message: ChatMessage) -> None:
        """The message's first checked quote in the paper view, as a click on its mark opens it."""
        from ensemble_tui.ui.chat_log.quote_marks import quotations  # when first used, not at start-up
        from ensemble_tui.ui.screens.paper import open_passage

        quotes = quotations(message.checks)
        if not quotes:
            self.ctx.say("No checked quote in this message: a reply's ✓ and ✗ marks open the paper.")
            return
        open_passage(self.ctx.app, quotes[0])

    def copy(self, message: ChatMessage) -> None:
        self.ctx.app.copy_to_clipboard(message.text)
        self.ctx.say(
            "Question copied to the clipboard." if message.role == "user" else "Reply copied to the clipboard."
        )

    def edit(self, index: int, message: ChatMessage) -> None:
        """The question's text into the box; sending it makes the branch."""
        ctx = self.ctx
        history = ctx.workspace.session.history
        from ensemble_tui.core.store.fork import question_number  # when first used, not at start-up

        number = question_number(history, index)
        self.pending = PendingEdit(ctx.workspace.session.id, number - 1)
        chat_input = ctx.view.chat.input
        chat_input.load_text(message.text)
        chat_input.move_cursor(chat_input.document.end)
        ctx.view.chat.log_view.leave_cursor()
        chat_input.focus()
        ctx.say(f"Editing question {number}: sending it starts a branch; this chat stays.")

    def fork_here(self, index: int) -> None:
        """A new chat with the turns up to and including this message's (a question, or the reply
        that ends its turn), ready for the next question."""
        ctx = self.ctx
        from ensemble_tui.core.store.fork import question_number  # when first used, not at start-up

        number = question_number(ctx.workspace.session.history, index)
        if self._branch(number):
            ctx.view.chat.input.focus()
            ctx.say(f"New chat, {fork_phrase(number)}: ask the next question.")

    def branch_before_send(self, text: str) -> None:
        """Before a question is sent: if it is an edited one, of the chat on screen, the branch is
        made now and the question goes there."""
        pending, self.pending = self.pending, None
        if pending is None or not text.strip() or pending.chat != self.ctx.workspace.session.id:
            return
        self._branch(pending.after)

    def _branch(self, after: int) -> bool:
        ctx = self.ctx
        if self.busy():
            ctx.app.notify("A reply is under way: branch once it is in.", severity="warning", markup=False)
            return False
        from ensemble_tui.core.store.fork import ForkError, fork_chat  # when first used, not at start-up

        try:
            ctx.workspace.session = fork_chat(ctx.workspace.store, ctx.workspace.session, after)
        except (ForkError, OSError) as exc:
            ctx.add_notice(f"Cannot make the branch: {exc}", "error")
            return False
        self.show_session()
        return True
