"""The list of deliberation styles, opened from the style button under the question box.

A dialog built when asked for, rather than a `Select` whose list (an OptionList overlay) is
mounted with the app: the Select cost 15-20 ms of a start-up measured against a bare Textual app
(bench row 5), for a choice F6-F9 and the palette make too.
"""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.ui.bindings import STYLE_KEYS, key_name

STYLE_SUMMARIES: dict[Style, str] = {
    Style.AGGREGATE: "an aggregator writes the reply or asks for another round",
    Style.COUNCIL: "anonymous peer ranking, then a chairman writes the reply",
    Style.VOTE: "each model critiques the others; a Borda vote picks the reply",
    Style.DEBATE: "rounds of debate, then a vote picks the final answer",
}


def style_line(style: Style) -> Table:
    """A style's line, "F6  Aggregator - an aggregator writes...", wrapped under the name. The
    key chooses the style from anywhere on the main screen, so the list teaches it (it was shown
    only in the empty chat's welcome text)."""
    line = Table.grid(padding=(0, 2))
    line.add_column(no_wrap=True)
    line.add_column()
    line.add_row(key_name(STYLE_KEYS[style]), f"{style.label} - {STYLE_SUMMARIES[style]}")
    return line


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

    def __init__(self, current: Style) -> None:
        super().__init__(classes="dialog-screen")
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            keys = f"{key_name(STYLE_KEYS[Style.AGGREGATE])}-{key_name(STYLE_KEYS[Style.DEBATE])}"
            yield Label(
                f"How All and ChatGPT & Gemini deliberate (Enter or {keys} picks, Esc closes)", classes="dialog-title"
            )
            yield OptionList(*(Option(style_line(style), id=style.value) for style in Style), id="styles")

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = list(Style).index(self.current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(Style(event.option_id))

    def action_pick(self, style_value: str) -> None:
        self.dismiss(Style(style_value))

    def action_dismiss_picker(self) -> None:
        self.dismiss(None)
