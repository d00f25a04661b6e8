"""The action buttons under the input, one per run mode, and the style button beside them.

The mode buttons choose which models take part; the style button opens the list of styles, which
chooses how a multi-model turn deliberates (aggregator, council, vote, debate). The button of the
mode Enter uses is marked as the default; while a run is under way its button is marked as
running, and pressing it again cancels the run.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button

from ensemble_tui.core.chat.modes import Mode, RunMode, Style
from ensemble_tui.ui.bindings import AUTO_WHAT, MODE_KEYS, STYLE_KEYS, key_name, shown_key
from ensemble_tui.ui.screens.style_picker import StylePicker, style_keys


def style_hint(keymap: Mapping[str, str]) -> str:
    """The style button's tooltip, naming each style's key as Keymap.json maps it."""
    keys = ", ".join(f"{shown_key(f'style.{style.value}', keymap)} {style.label}" for style in STYLE_KEYS)
    return f"How All and ChatGPT & Gemini deliberate; single models ignore it. Keys: {keys}"


# The class Button's `flat` watcher gives a button that is not flat once it is mounted: given here,
# the watcher changes nothing, and each of the seven buttons is styled once less at start-up.
UNFLAT = "-style-default"


def button_id(mode: Mode) -> str:
    return f"mode-{mode.value}"


class ModeButton(Button):
    def __init__(self, mode: Mode) -> None:
        super().__init__(mode.label, id=button_id(mode), classes=f"mode-button {UNFLAT}")
        self.mode = mode
        self.show_key(key_name(MODE_KEYS[mode]))

    def show_key(self, key: str) -> None:
        what = f": {AUTO_WHAT}" if self.mode is Mode.AUTO else ""
        self.tooltip = (
            f"Send with {self.mode.label}{what} ({key}; empty input: redo the last reply)."
            " Press again while running to cancel."
        )


class StyleButton(Button):
    """Shows the style in use; pressing it opens the list of styles (screens/style_picker.py)."""

    def __init__(self, style: Style) -> None:
        super().__init__(style_label(style), compact=True, id="style-button", classes=UNFLAT, tooltip=style_hint({}))
        self.chosen = style

    def show(self, style: Style) -> None:
        if style is not self.chosen:
            self.chosen = style
            self.label = style_label(style)


def style_label(style: Style) -> str:
    return f"{style.label} ▾"


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
        super().__init__(id=id)
        self._initial_style = style
        self.keymap: Mapping[str, str] = {}  # Keymap.json, as show_keys was given it

    def compose(self) -> ComposeResult:
        for mode in Mode:
            yield ModeButton(mode)
        yield StyleButton(self._initial_style)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if isinstance(event.button, ModeButton):
            event.stop()
            self.post_message(self.ModeChosen(event.button.mode))
        elif isinstance(event.button, StyleButton):
            event.stop()
            self.app.push_screen(StylePicker(event.button.chosen, style_keys(self.keymap)), self._style_picked)

    def _style_picked(self, style: Style | None) -> None:
        if style is not None:
            self.post_message(self.StyleChosen(style))

    def show_keys(self, keymap: Mapping[str, str]) -> None:
        """Name the keys in the tooltips (and the style picker) as Keymap.json maps them."""
        self.keymap = keymap
        for button in self.query(ModeButton):
            button.show_key(shown_key(f"mode.{button.mode.value}", keymap))
        self.style_button.tooltip = style_hint(keymap)

    @property
    def style_button(self) -> StyleButton:
        return self.query_one(StyleButton)

    def mark(
        self, default: RunMode, running: RunMode | None, style: Style, unavailable: frozenset[RunMode] = frozenset()
    ) -> None:
        """Highlight the default (Enter) mode and the running one, dim the modes that cannot run
        (a missing key; pressed, they say which), and show the style."""
        for button in self.query(ModeButton):
            button.set_class(button.mode in unavailable, "-unavailable")
            button.set_class(button.mode is default, "-default")
            is_running = button.mode is running
            button.set_class(is_running, "-running")
            button.label = f"■ {button.mode.label}" if is_running else button.mode.label
        self.style_button.show(style)
