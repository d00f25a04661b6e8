"""A yes/no question before something that cannot be undone (deleting a chat)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ensemble_tui.ui.chat_log.rendering import plain


class ConfirmScreen(ModalScreen[bool]):
    """Returns True only when the user presses the action's button; Esc and "Keep" return False.
    The safe button has the focus, so a stray Enter keeps what is there."""

    BINDINGS = [
        Binding("escape", "keep", "Keep", id="confirm.keep"),
        Binding("left", "app.focus_previous", "Previous button", show=False, id="confirm.previous"),
        Binding("right", "app.focus_next", "Next button", show=False, id="confirm.next"),
    ]

    def __init__(self, question: str, consequence: str, action: str) -> None:
        super().__init__(classes="dialog-screen")
        self.question = question
        self.consequence = consequence
        self.action = action

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog quit-dialog"):
            yield Label(plain(self.question), classes="dialog-title")
            yield Static(plain(self.consequence))
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.action, id="confirm-yes", variant="error")
                yield Button("Keep (Esc)", id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_keep(self) -> None:
        self.dismiss(False)
