"""The five action buttons under the input: one per run mode.

The button of the mode Enter uses is marked as the default; while a run is under way its
button is marked as running, and pressing it again cancels the run.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button

from ensemble_tui.core.modes import Mode


def button_id(mode: Mode) -> str:
    return f"mode-{mode.value}"


class ModeButton(Button):
    def __init__(self, mode: Mode) -> None:
        super().__init__(mode.label, id=button_id(mode), classes="mode-button")
        self.mode = mode
        self.tooltip = (
            f"Send with {mode.label} (empty input: redo the last reply). Press again while running to cancel."
        )


class ActionBar(Horizontal):
    """Posts ModeChosen when a mode button is pressed."""

    class ModeChosen(Message):
        def __init__(self, mode: Mode) -> None:
            super().__init__()
            self.mode = mode

    def compose(self) -> ComposeResult:
        for mode in Mode:
            yield ModeButton(mode)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if isinstance(event.button, ModeButton):
            event.stop()
            self.post_message(self.ModeChosen(event.button.mode))

    def mark(self, default: Mode, running: Mode | None) -> None:
        """Highlight the default (Enter) mode and the running one."""
        for button in self.query(ModeButton):
            button.set_class(button.mode is default, "-default")
            is_running = button.mode is running
            button.set_class(is_running, "-running")
            button.label = f"■ {button.mode.label}" if is_running else button.mode.label
