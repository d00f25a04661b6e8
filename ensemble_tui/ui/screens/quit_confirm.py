"""Asked when Ctrl+Q is pressed while a reply is under way: quitting cancels the run.

The dialog follows the turn's phase (the TurnController's one record): once the reply is kept
it no longer says a reply is under way, but what quitting now would drop, if anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ensemble_tui.core.turn.handle import TurnPhase

if TYPE_CHECKING:
    from ensemble_tui.ui.turns.active_turn import ActiveTurn
    from ensemble_tui.ui.turns.turn_controller import TurnController

QUESTION = "A reply is under way. Quit anyway?"
CONSEQUENCE = "Nothing of this run is kept; the question is back in the box next time."
MAPPING_QUESTION = "The reply is kept; its claim map is still being drawn. Quit anyway?"
MAPPING_CONSEQUENCE = "The claim map is dropped; what its call cost is kept with the chat."
ENDED_QUESTION = "The reply is kept. Quit?"
ENDED_CONSEQUENCE = "Nothing is lost by quitting now."
WAIT, STAY = "Keep waiting (Esc)", "Stay (Esc)"  # back to the app: while something runs, and after


def wording(turn: ActiveTurn | None) -> tuple[str, str, str]:
    """The dialog's question, what quitting would cost, and the way back, for the turn's phase."""
    if turn is None:
        return ENDED_QUESTION, ENDED_CONSEQUENCE, STAY
    if turn.phase is TurnPhase.MAPPING:
        return MAPPING_QUESTION, MAPPING_CONSEQUENCE, WAIT
    return QUESTION, CONSEQUENCE, WAIT


class QuitConfirm(ModalScreen[bool]):
    """Returns True to quit. Ctrl+Q again confirms (the app's own Ctrl+Q binding sees this screen
    and dismisses it with True); Esc or "Keep waiting" goes back to the run. `turns`: the
    controller whose turn the wording follows."""

    BINDINGS = [Binding("escape", "stay", "Keep waiting", id="quit.stay")]

    def __init__(self, quit_key: str = "Ctrl+Q", turns: TurnController | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.quit_key = quit_key
        self.turns = turns

    def compose(self) -> ComposeResult:
        question, consequence, back = (
            wording(self.turns.turn) if self.turns is not None else (QUESTION, CONSEQUENCE, WAIT)
        )
        with Vertical(classes="dialog quit-dialog"):
            yield Label(question, classes="dialog-title", id="quit-question")
            yield Static(consequence, id="quit-consequence")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"Quit ({self.quit_key})", id="quit-confirm", variant="error")
                yield Button(back, id="quit-stay")

    def on_mount(self) -> None:
        self.query_one("#quit-stay", Button).focus()
        if self.turns is not None:
            self.watch(self.turns, "turn", self._follow, init=False)

    def _follow(self, turn: ActiveTurn | None) -> None:
        question, consequence, back = wording(turn)
        self.query_one("#quit-question", Label).update(question)
        self.query_one("#quit-consequence", Static).update(consequence)
        self.query_one("#quit-stay", Button).label = back

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "quit-confirm")

    def action_stay(self) -> None:
        self.dismiss(False)
