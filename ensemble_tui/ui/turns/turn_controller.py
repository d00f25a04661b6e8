"""The turn on screen: one widget owns the worker, the run id and the turn's one record.

`TurnController.turn` (a Textual reactive) is the one record of the turn on screen, its phase
included (ui/turns/active_turn.py): set when a turn starts, its phase MAPPING once the reply is
shown while its claim map is still drawn, None once the turn's last event is shown. The status
line, the buttons, Cancel, the quit dialog and the garbage collector's schedule follow it
(watchers), and `may_send` is the one answer to "may the user send now?".

The worker reads the engine's turn handle (core/turn/handle.py) and posts each typed event to
this widget as a `TurnEventPosted` message; `_render` matches them exhaustively and shows exactly
what each carries (the input, a proposal, a resubmission, the cost, the committed reply, the
rollback, the late claim map). A late map's summary reaches an open Compare through the
`claims_mapped` signal, keyed by the run's archive id. The turn's messages are found in the chat
by position (`ActiveTurn.chat_from`), not by object identity. The session is never read here: a
chat is read only where it is opened (the main screen's `show_session`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, assert_never

from textual import on, work
from textual.message import Message
from textual.reactive import var
from textual.signal import Signal
from textual.widget import Widget
from textual.worker import Worker, WorkerCancelled, WorkerError, WorkerFailed, WorkerState

from ensemble_tui.core.chat.modes import RunMode, Style
from ensemble_tui.core.chat.session import with_failure
from ensemble_tui.core.turn.handle import TurnPhase
from ensemble_tui.ui.bindings import shown_key
from ensemble_tui.ui.chat_log.chat_view import ChatNotice, VoteNotice
from ensemble_tui.ui.chat_log.vote_view import ReviewOutcome, review_line, vote_table
from ensemble_tui.ui.turns.active_turn import ActiveTurn
from ensemble_tui.ui.turns.choices import TurnChoices
from ensemble_tui.ui.widgets.status_bar import elapsed_text

if TYPE_CHECKING:
    from ensemble_tui.core.turn import events as ev
    from ensemble_tui.core.turn.engine import Engine
    from ensemble_tui.ui.actions.context import AppContext
    from ensemble_tui.ui.drafts import DraftKeeper
    from ensemble_tui.ui.gc_schedule import CollectorPolicy
    from ensemble_tui.ui.notify import ReplyNotifier

log = logging.getLogger(__name__)

DONE = "Reply complete"  # how the status line starts when a turn has its reply
MAPPED = "Claims mapped."  # after that line when the claim map came after the reply
FINISHED = (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED)
SETTLE_DELAY_S = 1.0  # idle time after a turn before a full collection may run (ui/gc_schedule.py)
CANCELLED = "Cancelled - nothing of that run was kept."
REDO_PREFIX = "Redo: "  # before a redo's progress lines, so the line still names it
BROUGHT_BACK = "The replaced reply is back (the same palette action swaps the two again)."
REDO_FAILED = "The redo stopped - the last reply is kept as it was."


def redo_line(turn: ActiveTurn) -> str:
    """What the status line says as a redo starts (a restyle is a redo in a new style)."""
    if turn.reuse:
        return f"Restyling the last reply as {turn.label}…"
    return f"Redoing the last reply with {turn.label}…"


class TurnEventPosted(Message):
    """One engine event from run `run_id` (late events of a superseded run are dropped)."""

    def __init__(self, run_id: int, event: ev.TurnEvent) -> None:
        super().__init__()
        self.run_id = run_id
        self.event = event


class TurnController(Widget):
    """Starts, cancels and shows turns; invisible itself."""

    DEFAULT_CSS = "TurnController { display: none; }"

    turn: var[ActiveTurn | None] = var(None, init=False)
    """The turn on screen, if any, its phase included: set when it starts, None once its last
    event is shown (its reply, its failure, its rollback, or its late claim map)."""

    def __init__(
        self,
        ctx: AppContext,
        choices: TurnChoices,
        drafts: DraftKeeper,
        *,
        engine: Callable[[], Engine],
        notifier: ReplyNotifier,
        collector: CollectorPolicy,
    ) -> None:
        """`choices`: the chat's mode and style, which a turn starts from (the main screen's);
        `engine`: the app's, made on first use."""
        super().__init__()
        self.ctx = ctx
        self.choices = choices
        self.drafts = drafts
        self.engine = engine
        self.notifier = notifier
        self.collector = collector
        self._run_counter = 0
        self._review_notice: ChatNotice | None = None
        self.claims_mapped: Signal[ev.ClaimsMapped] = Signal(self, "claims-mapped")
        """A claim map drawn after its reply (Compare, if open on that run, shows it)."""

    @property
    def running(self) -> bool:
        """A reply is under way (its map, drawn after it, does not count)."""
        return self.turn is not None and self.turn.running

    @property
    def may_send(self) -> bool:
        """The one answer to "may the user send now?": yes unless a reply is under way (a claim
        map still drawn is dropped by the next turn, its cost kept)."""
        return not self.running

    @property
    def map_pending(self) -> bool:
        """Whether the last turn's claim map is still being drawn (its reply is shown already)."""
        return self.turn is not None and self.turn.phase is TurnPhase.MAPPING

    # ----- starting and stopping ------------------------------------------------------------

    def choose_mode(self, mode: RunMode, text: str) -> None:
        """An action button or key: send `text`; during a run, the run's own mode cancels it and
        any other starts nothing (the calls already paid for are not thrown away)."""
        turn = self.turn
        if self.may_send:
            self.start(mode, text)
        elif turn is not None and mode == turn.mode:  # == : a SingleModel is a new value each time
            self.cancel()
        else:
            self.ctx.app.notify(self.busy_message(), severity="warning", markup=False)

    def busy_message(self) -> str:
        return f"A reply is under way: {shown_key('run.cancel', self.ctx.keymap)} cancels it."

    def start(
        self,
        mode: RunMode,
        text: str,
        reuse: dict[str, str] | None = None,
        reused_from: int = 0,
        style: Style | None = None,
    ) -> None:
        """`reuse`: first proposals in hand (a restyle, ui/actions/restyle_actions.py), in `style`
        (None: the chat's). A claim map still drawn for the last turn is dropped (the engine
        supersedes its handle)."""
        self._run_counter += 1
        chosen = style or self.choices.style  # a restyle's own style: the chat's choice stays as it was
        turn = ActiveTurn(self._run_counter, mode, text, chosen, reuse=dict(reuse or {}), reused_from=reused_from)
        self.choices.mode = mode
        self._review_notice = None
        self.ctx.show_pane("chat")
        self.turn = turn  # the status line, the buttons and the collector follow (watchers)
        self.ctx.view.chat.status.show(f"Starting {turn.label}…")
        turn.worker = self._drive(turn)
        self.drafts.flush()  # the question is on disk until its turn is saved

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def _drive(self, turn: ActiveTurn) -> None:
        """Run one turn and forward its events; starting another turn cancels this worker."""
        async for event in self.engine().run(turn.mode, turn.text, turn.style, turn.reuse, turn.reused_from):
            self.post_message(TurnEventPosted(turn.run_id, event))

    def bring_back(self) -> None:
        """The palette's "Bring back the replaced reply": the engine puts the reply the last redo
        replaced back (stored through the one commit) and the chat shows what it now holds."""
        if self.running:
            self.ctx.app.notify(self.busy_message(), severity="warning", markup=False)
            return
        self._bring_back()

    @work(group="bring-back", exit_on_error=False)
    async def _bring_back(self) -> None:
        result = await self.engine().bring_back()
        if isinstance(result, str):  # why nothing changed, one line
            self.ctx.view.chat.status.show(result)
            return
        self.ctx.view.chat.log_view.sync(list(result.history))
        self.ctx.view.chat.status.show(BROUGHT_BACK)

    def cancel(self) -> None:
        """Esc: the engine rolls the turn back and says so (TurnRolledBack)."""
        if self.running:
            self.engine().stop()

    async def stop(self) -> str:
        """Before the chat changes or the app quits: the turn on screen is stopped and the
        core has rolled it back (a reply under way), or dropped its claim map and kept the map's
        cost (MAPPING). Returns the text to put back in the box ("" unless a reply was under way)."""
        turn, self.turn = self.turn, None
        if turn is None:
            return ""
        self.engine().stop()
        if turn.worker is not None:
            try:
                await turn.worker.wait()
            except (WorkerCancelled, WorkerFailed, WorkerError):
                pass
        if not turn.running:
            return ""
        self.ctx.view.chat.status.show(CANCELLED)
        return turn.text

    def _set_phase(self, turn: ActiveTurn, phase: TurnPhase) -> None:
        """The turn's phase as shown; the watchers follow it like a new turn."""
        turn.phase = phase
        self.mutate_reactive(TurnController.turn)

    @on(Worker.StateChanged)
    def _worker_ended(self, event: Worker.StateChanged) -> None:
        """A worker that ends before its turn's last event: a bug in the turn, or a cancel."""
        turn = self.turn
        if event.worker.group != "turn" or turn is None or event.worker is not turn.worker:
            return
        if event.state not in FINISHED:
            return
        if not turn.running:  # its map was dropped: the reply stays as shown
            self._finish()
            return
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            log.error("the turn worker failed", exc_info=error)
            self.ctx.add_notice(f"Unexpected error ({type(error).__name__}: {error}) - the chat is saved.", "error")
            self.ctx.view.chat.status.show("Stopped by an unexpected error.")
            if not turn.input_kept:
                self.ctx.view.chat.input.restore(turn.text)  # the engine never kept it: keep it here
        else:
            self.ctx.view.chat.status.show("Stopped.")
        self._finish()

    def _finish(self) -> None:
        """The turn is over (its last event has been shown): the next one may start at once."""
        self.turn = None

    def watch_turn(self, turn: ActiveTurn | None) -> None:
        """No full collection while a reply is under way; after one, collect once the app is
        idle (ui/gc_schedule.py)."""
        if turn is not None and turn.running:
            self.collector.pause()
        else:
            self.call_after_refresh(self._collect_between_turns)

    def _collect_between_turns(self) -> None:
        """Full collections wait until the app has been idle for a moment after the reply
        (not on the reply's frame, nor on keys typed as it arrives): then one runs, and what
        a first use of an SDK left behind is frozen. Back-to-back turns keep waiting."""
        if not self.running:
            self.set_timer(SETTLE_DELAY_S, self._settle_if_idle)

    def _settle_if_idle(self) -> None:
        if not self.running:
            self.collector.resume()
            self.collector.settle()

    # ----- rendering what each event carries ---------------------------------------------------

    @on(TurnEventPosted)
    def _event_posted(self, message: TurnEventPosted) -> None:
        message.stop()
        turn = self.turn
        if turn is not None and turn.run_id == message.run_id:
            try:
                self._render(turn, message.event)
            except AssertionError:  # assert_never: an event outside the TurnEvent union (a bug)
                log.error("an event the app does not know: %r", message.event, exc_info=True)
                self.ctx.add_notice(
                    f"An event the app does not know was not shown ({type(message.event).__name__}).", "error"
                )
        # else: a late event of a run that was superseded or stopped

    def _render(self, turn: ActiveTurn, event: ev.TurnEvent) -> None:
        # Imported with the first event, not before the first frame: its ~20 frozen dataclasses
        # were ~12 ms of start-up's CPU (dataclass creation), for a screen that shows no turn yet.
        from ensemble_tui.core.turn import events as ev

        chat = self.ctx.view.chat.log_view
        match event:
            case ev.InputRecorded():
                # The chat shows the session, so a reply a redo withdraws is its last message.
                shown = chat.items
                kept = shown[:-1] if event.withdrawn is not None and shown else shown
                if event.message is None and event.withdrawn is None:  # a retry: why it failed goes
                    kept = with_failure(kept, None)
                turn.chat_from, turn.shows_input, turn.withdrawn = len(kept), event.message is not None, event.withdrawn
                turn.resubmissions_from = len(self.ctx.view.resubmissions.log_view.items)
                chat.sync([*kept, event.message] if event.message is not None else kept)
                if event.withdrawn is not None:  # one key redoes at once: the line says what runs
                    self.ctx.view.chat.status.show(redo_line(turn))
            case ev.ChatReloaded():
                # The chat is shown as it now stands, this turn's messages in it as the core has them.
                turn.chat_from = turn.withdrawn = None
                turn.resubmissions_from = len(event.resubmissions)
                chat.sync(list(event.history))
                self.ctx.view.resubmissions.log_view.sync(list(event.resubmissions))
                self.ctx.view.chat.status.set_cost(event.cost_usd)
            case ev.StatusChanged():
                if turn.running:  # else the line shows the reply's end (a late commit waiting)
                    text = f"{REDO_PREFIX}{event.text}" if turn.withdrawn is not None else event.text
                    self.ctx.view.chat.status.update_status(text, event.answered, event.waiting)
            case ev.RetryScheduled():
                self.ctx.view.chat.status.set_retry(event.line)
            case ev.ProposalReceived():
                self.ctx.view.model_pane(event.provider).show(event.output, event.output.model)
            case ev.ProposerFailed():
                self.ctx.add_notice(f"Left out of this reply - {event.message}", "warning")
            case ev.Resubmitted():
                log_view = self.ctx.view.resubmissions.log_view
                log_view.sync([*log_view.items, event.resubmission])
            case ev.ReviewReceived():
                self._review_arrived(turn, event)
            case ev.VoteCounted():  # shown until the reply shows it beside itself
                turn.vote_notice = VoteNotice(vote_table(event.style, event.rows))
                chat.add_widget(turn.vote_notice)
            case ev.CostUpdated():
                self.ctx.view.chat.status.set_cost(event.session_cost_usd)
            case ev.Notice():
                chat.add_notice(event.message, "info", late=not turn.running)
            case ev.TurnNotSaved():
                self.ctx.add_notice(event.message, "error")
            case ev.ReplyCommitted():
                self._reply_committed(turn, event)
            case ev.ClaimsMapped():
                if turn.reply is not None:  # its summary line, under the reply
                    chat.set_claim_lines({turn.reply.text: event.claims.summary})
                self.ctx.view.chat.status.note_turn_end(
                    MAPPED
                )  # the line stays short: style and cost keep their places
                self.claims_mapped.publish(event)
                self._finish()
            case ev.ClaimsLeftOut():
                chat.add_notice(event.message, "info", late=event.late)
                if event.late:
                    self.ctx.view.chat.status.show(event.message)
                    self._finish()
            case ev.RunFailed():
                turn.input_kept = event.input_kept
                self.ctx.add_notice(event.message, "error")
                if turn.withdrawn is not None:  # a failed redo: the core kept the reply; so does the chat
                    self._unshow(turn)
                    self.ctx.view.chat.status.show(REDO_FAILED)
                else:
                    retry = " Enter on an empty input retries it." if event.input_kept else ""
                    self.ctx.view.chat.status.show(f"The run stopped.{retry}")
                self.drafts.changed()
                self._finish()
            case ev.TurnRolledBack():
                self._rolled_back(turn, event)
                self._finish()
            case _:
                assert_never(event)

    def _unshow(self, turn: ActiveTurn) -> None:
        """Take the turn's input off the chat and give back the reply a redo withdrew."""
        if turn.chat_from is None:
            return  # the chat shows what the core holds (reloaded)
        chat = self.ctx.view.chat.log_view
        restored = [turn.withdrawn] if turn.withdrawn is not None else []
        chat.sync([*chat.items[: turn.chat_from], *restored])
        turn.chat_from = turn.withdrawn = None

    def _review_arrived(self, turn: ActiveTurn, event: ev.ReviewReceived) -> None:
        """One line per turn that fills in as reviews arrive; unreadable ballots are marked."""
        turn.reviews[event.reviewer] = ReviewOutcome(event.accepted, event.problem)
        line = review_line(turn.style, turn.reviews)
        kind = "info" if all(outcome.accepted for outcome in turn.reviews.values()) else "warning"
        if self._review_notice is None:
            self._review_notice = self.ctx.view.chat.log_view.add_notice(line, kind)
        else:
            self._review_notice.set_text(line, kind)

    def _reply_committed(self, turn: ActiveTurn, event: ev.ReplyCommitted) -> None:
        turn.input_kept = True
        chat = self.ctx.view.chat.log_view
        if turn.vote_notice is not None:
            turn.vote_notice.remove()
        if event.claims is not None:  # its summary line, under the reply
            chat.set_claim_lines({event.message.text: event.claims.summary})
        if turn.reply_at is not None:  # else the chat was reloaded with the reply in it
            chat.sync([*chat.items[: turn.reply_at], event.message])
            if event.resubmissions and turn.resubmissions_from is not None:  # now with their quote marks
                log_view = self.ctx.view.resubmissions.log_view
                log_view.sync([*log_view.items[: turn.resubmissions_from], *event.resubmissions])
        chat.reveal_start(event.message)
        turn.reply = event.message
        self.ctx.view.chat.status.show_turn_end(f"{DONE} ({turn.label}, {elapsed_text(turn.elapsed())}).")
        self.drafts.changed()  # its question is in the chat now
        if self.ctx.workspace.settings.notifications:
            summary = f"{turn.label} replied in {elapsed_text(turn.elapsed())}."
            self.run_worker(self.notifier.reply_complete(self.app, summary), group="notify", exit_on_error=False)
        if event.map_pending:  # the turn goes on: its claim map follows (ClaimsMapped or ClaimsLeftOut)
            self._set_phase(turn, TurnPhase.MAPPING)
        else:
            self._finish()

    def _rolled_back(self, turn: ActiveTurn, event: ev.TurnRolledBack) -> None:
        """Undo on screen what the turn showed: its input (back into the box), the reply a redo
        withdrew, its proposals and its resubmissions."""
        self._unshow(turn)
        for provider, output in event.outputs.items():
            self.ctx.view.model_pane(provider).replace_output(output)
        if turn.resubmissions_from is not None:
            log_view = self.ctx.view.resubmissions.log_view
            log_view.sync(log_view.items[: turn.resubmissions_from])
        self.ctx.view.chat.status.show(CANCELLED)
        self.ctx.view.chat.input.restore(turn.text)
