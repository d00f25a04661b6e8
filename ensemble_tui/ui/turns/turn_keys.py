"""The keys and buttons that start, cancel or style a turn, and quitting: a collaborator of
EnsembleApp that hands each request to the TurnController (ui/turns/turn_controller.py), which
owns the turn. The question box's text is kept on disk as a draft (ui/drafts.py), so a quit
loses nothing."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from textual.screen import Screen

from ensemble_tui.core.chat.modes import Mode, RunMode, SingleModel, Style, parse_run_mode
from ensemble_tui.core.store.drafts import Draft
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.chat_log.chat_view import NoticeKind
from ensemble_tui.ui.drafts import DraftKeeper
from ensemble_tui.ui.panes.chat import ChatPane
from ensemble_tui.ui.screens.quit_confirm import QuitConfirm
from ensemble_tui.ui.turns.turn_controller import TurnController

log = logging.getLogger(__name__)


class TurnKeysHost(Protocol):
    """What the turn's keys need of the app."""

    workspace: Workspace
    turns: TurnController
    drafts: DraftKeeper
    default_mode: RunMode
    style: Style
    chat_id: str

    @property
    def chat(self) -> ChatPane: ...
    @property
    def screen(self) -> Screen[Any]: ...
    def mark_actions(self) -> None: ...
    def branch_before_send(self, text: str) -> None: ...
    def say(self, text: str) -> None: ...
    def add_notice(self, text: str, kind: NoticeKind = "info") -> None: ...
    def notify(self, message: str, **kwargs: Any) -> None: ...
    def push_screen(self, screen: Any, callback: Any = None) -> Any: ...
    def exit(self) -> None: ...


class TurnKeys:
    """Send, cancel and choose the style; quit."""

    def __init__(self, host: TurnKeysHost) -> None:
        self.host = host
        self._style_unsaved = False  # a style chosen during a run, saved when the run ends

    def restore_choices(self, last_mode: str | None, last_style: str | None) -> None:
        """A chat opens with its last mode (Enter's default) and style; unknown values fall back."""
        host = self.host
        try:
            host.default_mode = parse_run_mode(last_mode or "all", host.workspace.extra_providers)
        except ValueError:  # e.g. an added provider whose file was removed since
            host.default_mode = Mode.ALL
        try:
            host.style = Style.parse(last_style or "aggregate")
        except ValueError:
            host.style = Style.AGGREGATE

    # ----- turns: what the keys and buttons ask of the turn controller ------------------------

    def send(self, mode_value: str) -> None:
        try:
            mode = parse_run_mode(mode_value, self.host.workspace.extra_providers)
        except ValueError as exc:  # a keymap or palette entry naming a provider that is gone
            self.host.notify(str(exc), severity="warning", markup=False)
            return
        self.choose_mode(mode)

    def send_added(self, slot: int) -> None:
        """Shift+F1..: the added providers in order, each alone."""
        extra = self.host.workspace.extra_providers
        if 0 <= slot < len(extra):
            self.choose_mode(SingleModel(extra[slot]))

    def send_default(self) -> None:
        """Enter in the question box: the mode last used (or the chat's)."""
        host = self.host
        if not host.turns.may_send:
            host.notify(f"{host.turns.busy_message()} Your text stays in the box.", severity="warning", markup=False)
            return
        self.choose_mode(host.default_mode)

    def choose_mode(self, mode: RunMode) -> None:
        host = self.host
        running = not host.turns.may_send
        if not running and (refused := host.workspace.refusal(mode)) is not None:
            # Refused before the question enters the chat: it stays in the box.
            host.add_notice(refused, "error")
            host.chat.status.show(f"{mode.label} cannot run: see the line above.")
            return
        # Pasted text can carry terminal escapes; they would be stored and replayed on screen.
        # During a run the box is left alone: nothing new starts.
        text = "" if running else strip_control(host.chat.input.take_text())
        if not running:  # an edited question goes to a branch of the chat (ui/actions/message_cursor.py)
            host.branch_before_send(text)
        host.turns.choose_mode(mode, text)

    def choose_style(self, style: Style) -> None:
        """F6-F9, the style button or the palette: the style of the next multi-model turn.

        It is kept with the chat (the engine also records it with each turn), so a restart or a
        reopened chat comes back with it. A run under way keeps the style it started with.
        """
        host = self.host
        if style is host.style:
            return
        host.style = style
        if not host.turns.running:
            self._save_style()
        else:
            self._style_unsaved = True  # saved when the run ends (turn_ended)
            host.say(f"{style.label} applies from the next multi-model turn.")
        host.mark_actions()

    def turn_ended(self) -> None:
        """A style chosen during the run that just ended is kept with the chat."""
        if self._style_unsaved:
            self._style_unsaved = False
            self._save_style()

    def _save_style(self) -> None:
        try:
            self.host.workspace.choose_style(self.host.style.value)
        except OSError as exc:
            log.warning("cannot save the chosen style: %s", exc)

    # ----- keeping the box's text, and quitting ------------------------------------------------

    def draft_now(self) -> tuple[str, Draft]:
        """The chat on screen and its draft: the box's text, and the question of a run whose
        turn is not saved yet."""
        host = self.host
        turn = host.turns.turn
        question = turn.text if turn is not None and not turn.input_kept else ""
        return host.chat_id, Draft(text=host.chat.input.text, question=question)

    def quit(self) -> None:
        """Ctrl+Q: quit at once, keeping the box's text; during a run, ask first (Ctrl+Q again
        confirms) and keep the run's question for the next start, nothing else of the run."""
        host = self.host
        if isinstance(host.screen, QuitConfirm):
            host.screen.dismiss(True)
            return
        if not host.turns.running:
            host.drafts.flush()
            host.exit()
            return
        host.push_screen(QuitConfirm(turns=host.turns), self.quit_confirmed)

    async def quit_confirmed(self, confirmed: bool | None) -> None:
        """Quit after a confirmation (or SIGTERM/SIGHUP): the run stopped, its question kept."""
        if not confirmed:
            return
        host = self.host
        text = await host.turns.stop()
        host.chat.input.restore(text)
        host.drafts.flush()
        host.exit()
