"""The keys and buttons that start, cancel or style a turn, and quitting: a mixin of EnsembleApp
whose actions hand the request to the TurnController (ui/turns/turn_controller.py), which owns the
turn. The question box's text is kept on disk as a draft (ui/drafts.py), so a quit loses nothing."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ensemble_tui.core.chat.modes import RunMode, SingleModel, Style, parse_run_mode
from ensemble_tui.core.store.drafts import Draft
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.ui.screens.quit_confirm import QuitConfirm
from ensemble_tui.ui.widgets.action_bar import ActionBar
from ensemble_tui.ui.widgets.chat_input import ChatInput

if TYPE_CHECKING:
    from textual.app import App

    from ensemble_tui.core.workspace import Workspace
    from ensemble_tui.ui.chat_log.chat_view import NoticeKind
    from ensemble_tui.ui.drafts import DraftKeeper
    from ensemble_tui.ui.panes.chat import ChatPane
    from ensemble_tui.ui.turns.turn_controller import TurnController
    from ensemble_tui.ui.turns.turns import ActiveTurn

    _Base = App[int]
else:
    _Base = object

log = logging.getLogger(__name__)


class TurnKeys(_Base):
    """Send, cancel and choose the style."""

    if TYPE_CHECKING:  # provided by EnsembleApp
        workspace: Workspace
        turns: TurnController
        chat: ChatPane
        default_mode: RunMode
        style: Style
        cancel_key: str
        chat_id: str
        drafts: DraftKeeper
        _style_unsaved: bool

        @property
        def turn(self) -> ActiveTurn | None: ...
        def mark_actions(self) -> None: ...
        def say(self, text: str) -> None: ...
        def add_notice(self, text: str, kind: NoticeKind = "info") -> None: ...

    # ----- turns: what the keys and buttons ask of the turn controller ------------------------

    def action_send(self, mode_value: str) -> None:
        try:
            mode = parse_run_mode(mode_value, self.workspace.extra_providers)
        except ValueError as exc:  # a keymap or palette entry naming a provider that is gone
            self.notify(str(exc), severity="warning", markup=False)
            return
        self.choose_mode(mode)

    def action_send_added(self, slot: int) -> None:
        """Shift+F1..: the added providers in order, each alone."""
        extra = self.workspace.extra_providers
        if 0 <= slot < len(extra):
            self.choose_mode(SingleModel(extra[slot]))

    def choose_mode(self, mode: RunMode) -> None:
        if self.turn is None and (refused := self.workspace.refusal(mode)) is not None:
            # Refused before the question enters the chat: it stays in the box.
            self.add_notice(refused, "error")
            self.chat.status.stop(f"{mode.label} cannot run: see the line above.")
            return
        # Pasted text can carry terminal escapes; they would be stored and replayed on screen.
        # During a run the box is left alone: nothing new starts.
        text = "" if self.turn is not None else strip_control(self.chat.input.take_text())
        self.turns.choose_mode(mode, text)

    def action_cancel_run(self) -> None:
        self.turns.cancel()

    def action_choose_style(self, style_value: str) -> None:
        self.choose_style(Style(style_value))

    def choose_style(self, style: Style) -> None:
        """F6-F9, the style button or the palette: the style of the next multi-model turn.

        It is kept with the chat (the engine also records it with each turn), so a restart or a
        reopened chat comes back with it. A run under way keeps the style it started with.
        """
        if style is self.style:
            return
        self.style = style
        if self.turn is None:
            try:
                self.workspace.choose_style(style.value)
            except OSError as exc:
                log.warning("cannot save the chosen style: %s", exc)
        else:
            self._style_unsaved = True  # saved when the run ends (turn_ended)
            self.say(f"{style.label} applies from the next multi-model turn.")
        self.mark_actions()

    def turn_ended(self) -> None:
        """The run is over: the buttons show it, and a style chosen during it is kept."""
        self.mark_actions()
        if self._style_unsaved:
            self._style_unsaved = False
            try:
                self.workspace.choose_style(self.style.value)
            except OSError as exc:
                log.warning("cannot save the chosen style: %s", exc)

    def on_chat_input_submitted(self, event: ChatInput.Submitted) -> None:
        event.stop()
        if self.turn is not None:
            self.notify(f"{self.turns.busy_message()} Your text stays in the box.", severity="warning", markup=False)
            return
        self.choose_mode(self.default_mode)

    def on_action_bar_mode_chosen(self, event: ActionBar.ModeChosen) -> None:
        event.stop()
        self.choose_mode(event.mode)
        self.chat.input.focus()

    def on_action_bar_style_chosen(self, event: ActionBar.StyleChosen) -> None:
        event.stop()
        self.choose_style(event.style)
        self.chat.input.focus()  # so Enter sends rather than reopening the list of styles

    # ----- keeping the box's text, and quitting ------------------------------------------------

    def _draft_now(self) -> tuple[str, Draft]:
        """The chat on screen and its draft: the box's text, and the question of a run whose
        turn is not saved yet."""
        turn = self.turn
        question = turn.text if turn is not None and not turn.input_kept else ""
        return self.chat_id, Draft(text=self.chat.input.text, question=question)

    def on_text_area_changed(self, event: ChatInput.Changed) -> None:
        if event.text_area.id == "chat-input":
            self.drafts.changed()

    async def action_quit(self) -> None:
        """Ctrl+Q: quit at once, keeping the box's text; during a run, ask first (Ctrl+Q again
        confirms) and keep the run's question for the next start, nothing else of the run."""
        if isinstance(self.screen, QuitConfirm):
            self.screen.dismiss(True)
            return
        if self.turn is None:
            self.drafts.flush()
            self.exit()
            return
        self.push_screen(QuitConfirm(), self._quit_confirmed)

    async def _quit_confirmed(self, confirmed: bool | None) -> None:
        if not confirmed:
            return
        text = await self.turns.stop()
        self.chat.input.restore(text)
        self.drafts.flush()
        self.exit()
