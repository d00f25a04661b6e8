"""Running turns: from an action key or button to an engine run in a worker, and back; the
deliberation style each multi-model turn uses; and how review and vote events are shown.

A mixin of EnsembleApp, kept apart so the app module stays about layout and the other actions.
The worker (`_drive_turn`) forwards each core event as a Textual message (ui/messages.py); the
handlers below push the new state down into the panes. Handlers are found by name
(`on_turn_began`, ...) because `@on` only registers on Textual classes, not on a mixin.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from textual import work
from textual.worker import Worker, WorkerCancelled, WorkerError, WorkerFailed, WorkerState

from ensemble_tui.core.modes import RunMode, SingleModel, Style, parse_run_mode
from ensemble_tui.core.sanitize import strip_control
from ensemble_tui.core.session import ModelOutput, Resubmission
from ensemble_tui.ui import messages as msg
from ensemble_tui.ui.chat_view import ChatNotice, VoteNotice
from ensemble_tui.ui.turns import ActiveTurn
from ensemble_tui.ui.vote_view import ReviewOutcome, review_line, vote_table
from ensemble_tui.ui.widgets.action_bar import ActionBar
from ensemble_tui.ui.widgets.chat_input import ChatInput
from ensemble_tui.ui.widgets.status_bar import elapsed_text

if TYPE_CHECKING:
    from textual.app import App

    from ensemble_tui.core.engine import Engine
    from ensemble_tui.core.workspace import Workspace
    from ensemble_tui.ui.chat_view import NoticeKind
    from ensemble_tui.ui.collector import CollectorPolicy
    from ensemble_tui.ui.notify import ReplyNotifier
    from ensemble_tui.ui.panes.chat import ChatPane
    from ensemble_tui.ui.panes.model import ModelPane
    from ensemble_tui.ui.panes.resubmissions import ResubmissionsPane

    _Base = App[int]
else:
    _Base = object

log = logging.getLogger(__name__)

SETTLE_DELAY_S = 1.0  # idle time after a turn before a full collection may run (ui/collector.py)


class TurnFlow(_Base):
    """Sending, cancelling and switching runs, and rendering their events."""

    if TYPE_CHECKING:  # provided by EnsembleApp
        workspace: Workspace
        engine: Engine
        notifier: ReplyNotifier
        turn: ActiveTurn | None
        default_mode: RunMode
        style: Style
        _run_counter: int
        _review_notice: ChatNotice | None
        _live_resubmissions: list[Resubmission]
        collector: CollectorPolicy
        cancel_key: str
        chat: ChatPane
        resubmissions: ResubmissionsPane

        def model_pane(self, provider: str) -> ModelPane: ...
        def show_pane(self, pane_id: str) -> None: ...
        def add_notice(self, text: str, kind: NoticeKind = "info") -> None: ...
        def _mark_actions(self) -> None: ...
        def _refresh_model_panes(self) -> None: ...

    def _current(self, message: msg.TurnMessage) -> ActiveTurn | None:
        """The active turn if `message` belongs to it; None for a late message of an old run."""
        turn = self.turn
        return turn if turn is not None and turn.run_id == message.run_id else None

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

    def action_choose_style(self, style_value: str) -> None:
        self.choose_style(Style(style_value))

    def choose_style(self, style: Style) -> None:
        """F6-F9, the style button or the palette: the style of the next multi-model turn.

        It is kept in the session (the engine also records it with each turn), so a restart or a
        reopened chat comes back with it. A run under way keeps the style it started with.
        """
        if style is self.style:
            return
        self.style = style
        self.workspace.session.last_style = style.value
        if self.turn is None:
            try:
                self.workspace.persist()
            except OSError as exc:
                log.warning("cannot save the chosen style: %s", exc)
        else:
            self.notify(f"{style.label} applies from the next multi-model turn.", markup=False)
        self._mark_actions()

    def choose_mode(self, mode: RunMode) -> None:
        """An action button or key: send, cancel (same mode while running) or switch mode."""
        turn = self.turn
        if turn is not None:
            if mode == turn.mode:  # == : a SingleModel is a new value each time a key makes one
                self.action_cancel_run()
            else:
                self._start(mode, turn.text)  # the question in flight, asked again in the new mode
            return
        # Pasted text can carry terminal escapes; they would be stored and replayed on screen.
        self._start(mode, strip_control(self.chat.input.take_text()))

    def on_chat_input_submitted(self, event: ChatInput.Submitted) -> None:
        event.stop()
        if self.turn is not None:
            self.notify(
                f"A reply is under way: {self.cancel_key} cancels it. Your text stays in the box.", markup=False
            )
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

    def _start(self, mode: RunMode, text: str) -> None:
        self._run_counter += 1
        turn = ActiveTurn(self._run_counter, mode, text, self.style)
        self.turn = turn
        self.default_mode = mode
        self._live_resubmissions = []
        self._review_notice = None
        self.show_pane("chat")
        self.chat.status.start(f"Starting {turn.label}…", hint=f"{self.cancel_key} cancels")
        self._mark_actions()
        self.collector.pause()  # no full collection mid-turn (see ui/collector.py)
        turn.worker = self._drive_turn(turn)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def _drive_turn(self, turn: ActiveTurn) -> None:
        """Run one turn and forward its events; starting another turn cancels this worker."""
        async for event in self.engine.run(turn.mode, turn.text, turn.style):
            self.post_message(msg.message_for(turn.run_id, event))

    def action_cancel_run(self) -> None:
        if self.turn is not None and self.turn.worker is not None:
            self.turn.worker.cancel()

    async def _stop_turn(self) -> str:
        """Cancel the run (if any) and wait until the core has rolled it back; returns its text."""
        turn, self.turn = self.turn, None
        if turn is None:
            return ""
        if turn.worker is not None:
            turn.worker.cancel()
            try:
                await turn.worker.wait()
            except (WorkerCancelled, WorkerFailed, WorkerError):
                pass
        self.chat.status.stop("Cancelled - nothing of that run was kept.")
        self.call_after_refresh(self._collect_between_turns)
        return turn.text

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        turn = self.turn
        if event.worker.group != "turn" or turn is None or event.worker is not turn.worker:
            return
        if event.state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        self.turn = None
        if event.state is WorkerState.CANCELLED:
            self.chat.status.stop("Cancelled - nothing of that run was kept.")
            self.chat.input.restore(turn.text)
        elif event.state is WorkerState.ERROR:
            error = event.worker.error
            log.error("the turn worker failed", exc_info=error)
            self.add_notice(f"Unexpected error ({type(error).__name__}: {error}) - the chat is saved.", "error")
            self.chat.status.stop("Stopped by an unexpected error.")
            if self.workspace.session.pending_input != turn.text.strip():
                self.chat.input.restore(turn.text)  # the engine never recorded it: keep it here
        elif turn.outcome is None:
            self.chat.status.stop("Stopped.")
        self._after_turn()

    def _after_turn(self) -> None:
        """Re-read what the core kept (a cancelled run keeps nothing) into every pane."""
        session = self.workspace.session
        self._live_resubmissions = []
        self.chat.log_view.sync(session.history)
        self.resubmissions.log_view.sync(session.resubmissions)
        self.chat.status.set_cost(session.cost_usd)
        self._refresh_model_panes()
        self._mark_actions()
        self.call_after_refresh(self._collect_between_turns)

    def _collect_between_turns(self) -> None:
        """Full collections wait until the app has been idle for a moment after the turn
        (not on the reply's frame, nor on keys typed as it arrives): then one runs, and what
        a first use of an SDK left behind is frozen. Back-to-back turns keep waiting."""
        if self.turn is None:
            self.set_timer(SETTLE_DELAY_S, self._settle_if_idle)

    def _settle_if_idle(self) -> None:
        if self.turn is None:
            self.collector.resume()
            self.collector.settle()

    # ----- engine events -------------------------------------------------------------------

    def on_turn_began(self, message: msg.TurnBegan) -> None:
        if self._current(message):
            self.chat.log_view.sync(self.workspace.session.history)

    def on_turn_status_changed(self, message: msg.TurnStatusChanged) -> None:
        if self._current(message):
            event = message.event
            self.chat.status.update_status(event.text, event.answered, event.waiting)

    def on_proposal_arrived(self, message: msg.ProposalArrived) -> None:
        if self._current(message):
            event = message.event
            output = ModelOutput(query=event.query, text=event.text, model=event.model, note=event.note)
            self.model_pane(event.provider).show(output, event.model)

    def on_proposer_skipped(self, message: msg.ProposerSkipped) -> None:
        if self._current(message):
            self.add_notice(f"Left out of this reply - {message.event.message}", "warning")

    def on_resubmission_sent(self, message: msg.ResubmissionSent) -> None:
        if self._current(message):
            event = message.event
            self._live_resubmissions.append(Resubmission(iteration=event.iteration, text=event.text))
            self.resubmissions.log_view.sync([*self.workspace.session.resubmissions, *self._live_resubmissions])

    def on_review_arrived(self, message: msg.ReviewArrived) -> None:
        """One line per turn that fills in as reviews arrive; unreadable ballots are marked."""
        turn = self._current(message)
        if turn is None:
            return
        event = message.event
        turn.reviews[event.reviewer] = ReviewOutcome(event.accepted, event.problem)
        line = review_line(turn.style, turn.reviews)
        kind = "info" if all(outcome.accepted for outcome in turn.reviews.values()) else "warning"
        if self._review_notice is None:
            self._review_notice = self.chat.log_view.add_notice(line, kind)
        else:
            self._review_notice.set_text(line, kind)

    def on_votes_counted(self, message: msg.VotesCounted) -> None:
        if self._current(message):
            self.chat.log_view.add_widget(VoteNotice(vote_table(message.event)))

    def on_session_cost_changed(self, message: msg.SessionCostChanged) -> None:
        if self._current(message):
            self.chat.status.set_cost(message.event.session_cost_usd)

    def on_turn_noticed(self, message: msg.TurnNoticed) -> None:
        if self._current(message):
            self.add_notice(message.event.message, "info")

    def on_reply_finished(self, message: msg.ReplyFinished) -> None:
        turn = self._current(message)
        if turn is None:
            return
        turn.outcome = "final"
        self.chat.log_view.sync(self.workspace.session.history)
        self.chat.status.stop(f"Reply complete ({turn.label}, {elapsed_text(turn.elapsed())}).")
        if self.workspace.settings.notifications:
            summary = f"{turn.label} replied in {elapsed_text(turn.elapsed())}."
            self.run_worker(self.notifier.reply_complete(self, summary), group="notify", exit_on_error=False)

    def on_turn_failed(self, message: msg.TurnFailed) -> None:
        turn = self._current(message)
        if turn is None:
            return
        turn.outcome = "failed"
        self.chat.log_view.sync(self.workspace.session.history)
        self.add_notice(message.event.message, "error")
        retry = " Enter on an empty input retries it." if self.workspace.session.pending_input else ""
        self.chat.status.stop(f"The run stopped.{retry}")
