"""The action buttons under the input, one per run mode, and the style selector beside them.

The buttons choose which models take part; the selector chooses how a multi-model turn
deliberates (aggregator, council, vote, debate). The button of the mode Enter uses is marked as
the default; while a run is under way its button is marked as running, and pressing it again
cancels the run.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Select

from ensemble_tui.core.modes import Mode, RunMode, Style
from ensemble_tui.ui.bindings import STYLE_KEYS, key_name

STYLE_HINT = "How All and ChatGPT & Gemini deliberate; single models ignore it. Keys: " + ", ".join(
    f"{key_name(key)} {style.label}" for style, key in STYLE_KEYS.items()
)


def button_id(mode: Mode) -> str:
    return f"mode-{mode.value}"


class ModeButton(Button):
    def __init__(self, mode: Mode) -> None:
        super().__init__(mode.label, id=button_id(mode), classes="mode-button")
        self.mode = mode
        self.tooltip = (
            f"Send with {mode.label} (empty input: redo the last reply). Press again while running to cancel."
        )


class StyleSelect(Select[Style]):
    """A compact dropdown of the four styles; the app sets its value, the user changes it."""

    def __init__(self, style: Style) -> None:
        super().__init__(
            [(style.label, style) for style in Style],
            value=style,
            allow_blank=False,
            compact=True,
            id="style-select",
            tooltip=STYLE_HINT,
        )


class ActionBar(Horizontal):
    """Posts ModeChosen when a mode button is pressed, StyleChosen when the user picks a style."""

    class ModeChosen(Message):
        def __init__(self, mode: Mode) -> None:
            super().__init__()
            self.mode = mode

    class StyleChosen(Message):
        def __init__(self, style: Style) -> None:
            super().__init__()
            self.style = style

    def __init__(self, style: Style = Style.AGGREGATE, *, id: str | None = None) -> None:
        """`style` is the one shown at first: a Select only takes a value once mounted, and
        when it mounts it re-applies (and announces) the value it was built with."""
        super().__init__(id=id)
        self._initial_style = style

    def compose(self) -> ComposeResult:
        for mode in Mode:
            yield ModeButton(mode)
        yield StyleSelect(self._initial_style)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if isinstance(event.button, ModeButton):
            event.stop()
            self.post_message(self.ModeChosen(event.button.mode))

    def on_select_changed(self, event: Select.Changed) -> None:
        """Forward the user's choice. A Changed that no longer matches the selector's value is
        stale (the Select posts one when it mounts, before the app restores the saved style)."""
        event.stop()
        if isinstance(event.value, Style) and event.value == self.style_select.value:
            self.post_message(self.StyleChosen(event.value))

    @property
    def style_select(self) -> StyleSelect:
        return self.query_one(StyleSelect)

    def mark(self, default: RunMode, running: RunMode | None, style: Style) -> None:
        """Highlight the default (Enter) mode and the running one, and show the style.

        The selector's value is set with Select.Changed prevented: only the user's own choices
        may come back as StyleChosen (a programmatic change arriving late would undo a newer one).
        """
        for button in self.query(ModeButton):
            button.set_class(button.mode is default, "-default")
            is_running = button.mode is running
            button.set_class(is_running, "-running")
            button.label = f"■ {button.mode.label}" if is_running else button.mode.label
        if self.style_select.value != style:
            with self.style_select.prevent(Select.Changed):
                self.style_select.value = style
