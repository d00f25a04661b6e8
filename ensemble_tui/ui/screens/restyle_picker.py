"""The styles the last turn can be deliberated in again, from the proposals it already has.

Opened by Compare's `r` (ui/actions/restyle_actions.py); the turn's own style is left out, since
the palette's "Same turn as ..." entries and this list offer another look at the same proposals.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.ui.screens.style_picker import STYLE_SUMMARIES


class RestylePicker(ModalScreen[Style | None]):
    """Returns the style chosen for the restyle, or None when dismissed."""

    BINDINGS = [Binding("escape", "dismiss_picker", "Close", id="restyle.close")]

    def __init__(self, styles: Sequence[Style], title: str) -> None:
        super().__init__(classes="dialog-screen")
        self.choices = list(styles)  # not `styles`: a widget's CSS styles go by that name
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            options = (Option(f"{style.label} - {STYLE_SUMMARIES[style]}", id=style.value) for style in self.choices)
            yield OptionList(*options, id="restyle-styles", markup=False)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(Style(event.option_id))

    def action_dismiss_picker(self) -> None:
        self.dismiss(None)
