"""The list of deliberation styles, opened from the style button under the question box.

A dialog built when asked for, rather than a `Select` whose list (an OptionList overlay) is
mounted with the app: the Select cost 15-20 ms of a start-up measured against a bare Textual app
(bench row 5), for a choice F6-F9 and the palette make too.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.ui.bindings import STYLE_KEYS, key_span, shown_key

STYLE_SUMMARIES: dict[Style, str] = {
    Style.AGGREGATE: "an aggregator writes the reply or asks for another round",
    Style.COUNCIL: "anonymous peer ranking, then a chairman writes the reply",
    Style.VOTE: "each model critiques the others; a Borda vote picks the reply",
    Style.DEBATE: "rounds of debate, then a vote picks the final answer",
}


def style_line(style: Style, key: str) -> Table:
    """A style's line, "F6  Aggregator - an aggregator writes...", wrapped under the name. The
    key chooses the style from anywhere on the main screen, so the list teaches it (it was shown
    only in the empty chat's welcome text)."""
    line = Table.grid(padding=(0, 2))
    line.add_column(no_wrap=True)
    line.add_column()
    line.add_row(key, f"{style.label} - {STYLE_SUMMARIES[style]}")
    return line


def style_keys(keymap: Mapping[str, str]) -> dict[Style, str]:
    """Each style's key as Keymap.json maps it (the picker named the default keys)."""
    return {style: shown_key(f"style.{style.value}", keymap) for style in Style}


class StylePicker(ModalScreen[Style | None]):
    """Returns the chosen style, or None when dismissed; the current one is highlighted."""

    BINDINGS = [
        Binding("escape", "dismiss_picker", "Close", id="styles.close"),
        # The main screen's style keys, ids included (so a Keymap.json remap holds here too);
        # the app's own are off while a dialog is open.
        *(
            Binding(key, f"pick('{style.value}')", style.label, show=False, id=f"style.{style.value}")
            for style, key in STYLE_KEYS.items()
        ),
    ]

    def __init__(self, current: Style, keys: Mapping[Style, str] | None = None) -> None:
        """`keys`: each style's key as shown (style_keys), the defaults when not given."""
        super().__init__(classes="dialog-screen")
        self.current = current
        self.keys = dict(keys) if keys is not None else style_keys({})

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            keys = key_span([self.keys[style] for style in Style], "or")
            yield Label(
                f"How All and ChatGPT & Gemini deliberate (Enter or {keys} picks, Esc closes)", classes="dialog-title"
            )
            yield OptionList(
                *(Option(style_line(style, self.keys[style]), id=style.value) for style in Style), id="styles"
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = list(Style).index(self.current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(Style(event.option_id))

    def action_pick(self, style_value: str) -> None:
        self.dismiss(Style(style_value))

    def action_dismiss_picker(self) -> None:
        self.dismiss(None)
