"""Asked when Ctrl+Q is pressed while a reply is under way: quitting cancels the run."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

QUESTION = "A reply is under way. Quit anyway?"
CONSEQUENCE = "Nothing of this run is kept; the question is back in the box next time."


class QuitConfirm(ModalScreen[bool]):
    """Returns True to quit. Ctrl+Q again confirms (the app's own Ctrl+Q binding sees this screen
    and dismisses it with True); Esc or "Keep waiting" goes back to the run."""

    BINDINGS = [Binding("escape", "stay", "Keep waiting", id="quit.stay")]

    def __init__(self, quit_key: str = "Ctrl+Q") -> None:
        super().__init__(classes="dialog-screen")
        self.quit_key = quit_key

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog quit-dialog"):
            yield Label(QUESTION, classes="dialog-title")
            yield Static(CONSEQUENCE)
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"Quit ({self.quit_key})", id="quit-confirm", variant="error")
                yield Button("Keep waiting (Esc)", id="quit-stay")

    def on_mount(self) -> None:
        self.query_one("#quit-stay", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "quit-confirm")

    def action_stay(self) -> None:
        self.dismiss(False)
