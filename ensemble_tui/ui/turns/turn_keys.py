"""The keys and buttons that start, cancel or style a turn, and quitting: a collaborator of
the main screen (ui/main_screen.py) that hands each request to the TurnController (ui/turns/turn_controller.py), which
owns the turn. The question box's text is kept on disk as a draft (ui/drafts.py), so a quit
loses nothing."""

from __future__ import annotations

import logging
from collections.abc import Callable

from ensemble_tui.core.chat.modes import Mode, RunMode, SingleModel, Style, parse_run_mode
from ensemble_tui.core.store.drafts import Draft
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.ui.actions.context import AppContext
from ensemble_tui.ui.drafts import DraftKeeper
from ensemble_tui.ui.screens.quit_confirm import QuitConfirm
from ensemble_tui.ui.turns.choices import TurnChoices
from ensemble_tui.ui.turns.turn_controller import TurnController

log = logging.getLogger(__name__)


class TurnKeys:
    """Send, cancel and choose the style; quit."""

    def __init__(
        self,
        ctx: AppContext,
        turns: TurnController,
        choices: TurnChoices,
        drafts: DraftKeeper,
        *,
        chat_id: Callable[[], str],
        chosen: Callable[[], None],
        branch_before_send: Callable[[str], None],
    ) -> None:
        """`choices`: the chat's mode and style (the main screen's), which the keys change;
        `chat_id`: the chat on screen; `chosen`: the buttons and the status line follow a new
        choice; `branch_before_send`: an edited question makes its branch first (ui/actions/message_cursor.py)."""
        self.ctx = ctx
        self.turns = turns
        self.choices = choices
        self.drafts = drafts
        self.chat_id = chat_id
        self.chosen = chosen
        self.branch_before_send = branch_before_send
        self._style_unsaved = False  # a style chosen during a run, saved when the run ends

    def restore_choices(self, last_mode: str | None, last_style: str | None) -> None:
        """A chat opens with its last mode (Enter's default) and style; unknown values fall back."""
        try:
            self.choices.mode = parse_run_mode(last_mode or "all", self.ctx.workspace.extra_providers)
        except ValueError:  # e.g. an added provider whose file was removed since
            self.choices.mode = Mode.ALL
        try:
            self.choices.style = Style.parse(last_style or "aggregate")
        except ValueError:
            self.choices.style = Style.AGGREGATE

    # ----- turns: what the keys and buttons ask of the turn controller ------------------------

    def send(self, mode_value: str) -> None:
        try:
            mode = parse_run_mode(mode_value, self.ctx.workspace.extra_providers)
        except ValueError as exc:  # a keymap or palette entry naming a provider that is gone
            self.ctx.app.notify(str(exc), severity="warning", markup=False)
            return
        self.choose_mode(mode)

    def send_added(self, slot: int) -> None:
        """Shift+F1..: the added providers in order, each alone."""
        extra = self.ctx.workspace.extra_providers
        if 0 <= slot < len(extra):
            self.choose_mode(SingleModel(extra[slot]))

    def send_default(self) -> None:
        """Enter in the question box: the mode last used (or the chat's)."""
        if not self.turns.may_send:
            self.ctx.app.notify(
                f"{self.turns.busy_message()} Your text stays in the box.", severity="warning", markup=False
            )
            return
        self.choose_mode(self.choices.mode)

    def choose_mode(self, mode: RunMode) -> None:
        running = not self.turns.may_send
        if not running and (refused := self.ctx.workspace.refusal(mode)) is not None:
            # Refused before the question enters the chat: it stays in the box.
            self.ctx.add_notice(refused, "error")
            self.ctx.view.chat.status.show(f"{mode.label} cannot run: see the line above.")
            return
        # Pasted text can carry terminal escapes; they would be stored and replayed on screen.
        # During a run the box is left alone: nothing new starts.
        text = "" if running else strip_control(self.ctx.view.chat.input.take_text())
        if not running:  # an edited question goes to a branch of the chat (ui/actions/message_cursor.py)
            self.branch_before_send(text)
        self.turns.choose_mode(mode, text)

    def choose_style(self, style: Style) -> None:
        """F6-F9, the style button or the palette: the style of the next multi-model turn.

        It is kept with the chat (the engine also records it with each turn), so a restart or a
        reopened chat comes back with it. A run under way keeps the style it started with.
        """
        if style is self.choices.style:
            return
        self.choices.style = style
        if not self.turns.running:
            self._save_style()
        else:
            self._style_unsaved = True  # saved when the run ends (turn_ended)
            self.ctx.say(f"{style.label} applies from the next multi-model turn.")
        self.chosen()

    def turn_ended(self) -> None:
        """A style chosen during the run that just ended is kept with the chat."""
        if self._style_unsaved:
            self._style_unsaved = False
            self._save_style()

    def _save_style(self) -> None:
        try:
            self.ctx.workspace.choose_style(self.choices.style.value)
        except OSError as exc:
            log.warning("cannot save the chosen style: %s", exc)

    # ----- keeping the box's text, and quitting ------------------------------------------------

    def draft_now(self) -> tuple[str, Draft]:
        """The chat on screen and its draft: the box's text, and the question of a run whose
        turn is not saved yet."""
        turn = self.turns.turn
        question = turn.text if turn is not None and not turn.input_kept else ""
        return self.chat_id(), Draft(text=self.ctx.view.chat.input.text, question=question)

    def quit(self) -> None:
        """Ctrl+Q: quit at once, keeping the box's text; during a run, ask first (Ctrl+Q again
        confirms) and keep the run's question for the next start, nothing else of the run."""
        if isinstance(self.ctx.app.screen, QuitConfirm):
            self.ctx.app.screen.dismiss(True)
            return
        if not self.turns.running:
            self.drafts.flush()
            self.ctx.app.exit()
            return
        self.ctx.app.push_screen(QuitConfirm(turns=self.turns), self.quit_confirmed)

    async def quit_confirmed(self, confirmed: bool | None) -> None:
        """Quit after a confirmation (or SIGTERM/SIGHUP): the run stopped, its question kept."""
        if not confirmed:
            return
        text = await self.turns.stop()
        self.ctx.view.chat.input.restore(text)
        self.drafts.flush()
        self.ctx.app.exit()
