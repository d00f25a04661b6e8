"""The engine: runs one turn in a mode and yields typed events as it goes.

A turn runs in its own task and talks to the consumer through a queue, so cancelling the turn
(`cancel`, or the consumer going away) stops its calls at once. The engine is the only code
that changes the session, and it does so in one place, `_commit`, when the turn ends: a final
reply, a failure (its input is kept for a retry) or a cancel (nothing kept but the money spent).
The save runs in a worker thread; the reply is announced only once it is stored.
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ensemble_tui.core.chat.modes import Mode, RunMode, Style
from ensemble_tui.core.chat.provenance import Provenance, describe
from ensemble_tui.core.chat.runlog import Artifact, TurnRecord
from ensemble_tui.core.chat.session import (
    ChatMessage,
    SessionData,
    answered_turns,
    render_transcript,
    with_failure,
)
from ensemble_tui.core.claims.model import ClaimMap
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.paper import quote_checks
from ensemble_tui.core.paper.pdf import check_pdf
from ensemble_tui.core.provider import ProviderError, Turn
from ensemble_tui.core.store.budget_ledger import SqliteLedger
from ensemble_tui.core.store.recovery import recovery_folders, write_recovery
from ensemble_tui.core.store.session_store import TranscriptError, TurnChange
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.core.turn.assembly import TurnParts, assemble, run_turn
from ensemble_tui.core.turn.auto import auto_provenance
from ensemble_tui.core.turn.calls import CallPolicy, ModelCaller, Sleep
from ensemble_tui.core.turn.costs import BudgetExceeded
from ensemble_tui.core.turn.events import (
    ChatReloaded,
    EngineEvent,
    InputRecorded,
    Notice,
    ProposalReceived,
    ProposerFailed,
    ReplyCommitted,
    RunFailed,
    StatusChanged,
    TurnNotSaved,
    TurnRolledBack,
)
from ensemble_tui.core.turn.failure_lines import failure_message, save_failure, transcript_failure
from ensemble_tui.core.turn.late_map import LateMap
from ensemble_tui.core.turn.retry import RetryPolicy
from ensemble_tui.core.turn.runner import TurnRunner
from ensemble_tui.core.turn.styles.table import STYLES
from ensemble_tui.core.workspace import Workspace

log = logging.getLogger(__name__)

_DONE = object()
Emit = Callable[[EngineEvent], None]
REQUEST_KEY = "\x00request "  # a synthesis request's key among the texts checked (no provider's name)
WAITING_FOR_OTHER = "Another ensemble-tui is saving to this chat; waiting for it…"


@dataclass(frozen=True)
class TurnInput:
    """What a turn answers, decided from the session as the turn starts (nothing is changed yet)."""

    query: str
    message: ChatMessage | None  # the new input, or None for a retry or a redo
    withdrawn: ChatMessage | None  # the reply a redo replaces

    def base(self, history: list[ChatMessage]) -> list[ChatMessage]:
        """The history this turn's messages follow: a redo's old reply left out."""
        return history[:-1] if self.withdrawn is not None else list(history)

    def context(self, history: list[ChatMessage]) -> tuple[Turn, ...]:
        """What the models read before this turn's question: the answered chat, without a
        redo's old reply (and so without its question, which the turn asks again)."""
        return answered_turns(self.base(history))


def turn_input(session: SessionData, text: str) -> TurnInput:
    """The new input; else the input left without a reply (a retry); else a redo of the last reply."""
    query = strip_control(text).strip()
    if query:
        return TurnInput(query, ChatMessage(role="user", text=query), None)
    if session.pending_input is not None:
        return TurnInput(session.pending_input, None, None)
    if session.history:
        withdrawn = session.history[-1]
        return TurnInput(session.last_user_input or "", None, withdrawn)
    return TurnInput("", None, None)


@dataclass
class Engine:
    """Runs turns for one Workspace; only one turn runs at a time."""

    workspace: Workspace
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    rng: random.Random = field(default_factory=random.Random)
    sleep: Sleep = asyncio.sleep
    timeout_s: float = 180.0
    _task: asyncio.Task[None] | None = field(default=None, repr=False)
    _warned_models: set[str] = field(default_factory=set, repr=False)
    _prompt_warnings_shown: int = 0  # placeholder typos are reported once each
    _pdfs_noticed: set[Path | None] = field(default_factory=set, repr=False)  # "no text layer" said once

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def stop(self) -> None:
        """Cancel the turn in flight, if any; it rolls back and its run ends with TurnRolledBack."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def cancel(self) -> None:
        """Cancel the turn in flight, if any, and wait until it has rolled back."""
        task = self._task
        self.stop()
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    async def run(
        self,
        mode: RunMode,
        text: str,
        style: Style = Style.AGGREGATE,
        reuse: Mapping[str, str] | None = None,
        reused_from: int = 0,
    ) -> AsyncIterator[EngineEvent]:
        """Run a turn: `text` is the new input, or empty to redo the last reply.

        `style` decides how a multi-model mode deliberates; single modes ignore it. `reuse`
        holds first proposals already in hand (model -> text): their models are not asked again;
        `reused_from` names the chat's run they come from (a restyle's), for the run record.
        """
        await self.cancel()
        queue: asyncio.Queue[object] = asyncio.Queue()
        task = asyncio.create_task(self._turn(mode, text, style, queue.put_nowait, dict(reuse or {}), reused_from))
        task.add_done_callback(lambda _: queue.put_nowait(_DONE))
        self._task = task
        try:
            # A run superseded by a newer one stops yielding: its consumer has moved on.
            while (event := await queue.get()) is not _DONE and self._task is task:
                yield event  # type: ignore[misc]
        finally:
            if not task.done():
                task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            if self._task is task:
                self._task = None

    # ----- one turn ----------------------------------------------------------------------------

    async def _turn(
        self,
        mode: RunMode,
        text: str,
        style: Style,
        emit: Callable[[EngineEvent], None],
        reuse: dict[str, str],
        reused_from: int = 0,
    ) -> None:
        workspace = self.workspace
        await self._catch_up(emit)
        session = workspace.session
        given = turn_input(session, text)
        if not given.query:
            emit(RunFailed("Nothing to redo yet - type a question first."))
            return
        record = TurnRecord(
            session=session.id, mode=mode.value, style=style.value, query=given.query, simulated=workspace.demo
        )
        caller: ModelCaller | None = None
        runner: TurnRunner | None = None
        warming: asyncio.Task[Any] | None = None
        emit(
            InputRecorded(
                mode, given.query, redo=given.message is None, message=given.message, withdrawn=given.withdrawn
            )
        )
        try:
            runner = self._runner(mode, style, given, record, reuse, emit)
            caller = runner.context.caller
            warming = quote_checks.warm(caller.pdf, workspace.paths.cache)  # the paper's text, read meanwhile
            record.calls_saved = sum(name in reuse for name in runner.context.proposers) if mode.is_multi else 0
            record.reused_from = reused_from if record.calls_saved else 0
            reply = await run_turn(runner)
            checks = await self._check_quotes(reply.text, runner, warming, record, emit)
            map_pending, claims = await self._map_in_hand(runner)
        except asyncio.CancelledError:
            if warming is not None:
                warming.cancel()
            await abandon_map(runner)
            await self._commit(given, mode, style, record, caller, runner, outcome="cancelled", emit=emit)
            emit(
                TurnRolledBack(
                    given.message,
                    given.withdrawn,
                    {name: session.last_outputs.get(name) for name in (runner.outputs if runner else {})},
                )
            )
            raise
        except Exception as exc:  # every failure becomes one line; the input stays in place
            if not isinstance(exc, (EnsembleError, ProviderError, BudgetExceeded)):
                log.exception("turn failed unexpectedly")
            if warming is not None:
                warming.cancel()
            await abandon_map(runner)
            reason = failure_message(exc)
            await self._commit(given, mode, style, record, caller, runner, outcome="failed", emit=emit, failure=reason)
            emit(RunFailed(reason, input_kept=True))
            return
        message = ChatMessage(
            role="assistant",
            text=reply.text,
            sources=list(reply.sources),
            provenance=self._provenance(runner, restyled=record.reused_from > 0),
            checks=checks.get(""),
        )
        data = {"sources": list(reply.sources), "provenance": message.provenance.line if message.provenance else ""}
        record.artifacts.append(Artifact("final", "", reply.text, data=data))
        row = await self._commit(given, mode, style, record, caller, runner, outcome="final", reply=message, emit=emit)
        emit(ReplyCommitted(message, mode, claims, tuple(runner.resubmissions), map_pending=map_pending))
        if map_pending and caller is not None:
            await self._settle_map(LateMap(workspace, record, caller, caller.spent, row), runner, message, emit)

    async def _map_in_hand(self, runner: TurnRunner) -> tuple[bool, ClaimMap | None]:
        """(whether the map is still out, the map if it is drawn) as the reply is ready; never waits."""
        if runner.claim_mapping is None:
            return False, None
        return await runner.claim_mapping.in_hand()

    async def _settle_map(self, late: LateMap, runner: TurnRunner, reply: ChatMessage, emit: Emit) -> None:
        """The map still out when the reply was committed: awaited now, then kept with the run and
        announced (ClaimsMapped); a cancel (a new turn) drops it and keeps its cost (late_map.py)."""
        if runner.claim_mapping is not None:
            await late.settle(runner.claim_mapping, reply, emit)

    async def _check_quotes(
        self,
        text: str,
        runner: TurnRunner,
        warming: asyncio.Task[Any] | None,
        record: TurnRecord,
        emit: Callable[[EngineEvent], None],
    ) -> dict[str, dict[str, Any]]:
        """The reply's and each proposal's quotes against the PDF (keyed "" for the reply); the
        proposals' panes are shown again with their marks, and the record keeps every check.
        Each synthesis request (the proposals the aggregator sent back) keeps its own checks."""
        pdf = runner.context.caller.pdf
        texts = {"": text, **{name: output.text for name, output in runner.outputs.items()}}
        requests = {f"{REQUEST_KEY}{n}": request.text for n, request in enumerate(runner.resubmissions)}
        checks = await quote_checks.check_texts({**texts, **requests}, pdf, self.workspace.paths.cache, warming)
        for n, key in enumerate(requests):
            found = checks.pop(key, None)
            if found and not found.get("notice"):
                runner.resubmissions[n] = runner.resubmissions[n].model_copy(update={"checks": found})
        for name, found in list(checks.items()):
            if found.get("notice"):  # a scan, or a PDF that cannot be read: said once, not per reply
                if pdf not in self._pdfs_noticed:
                    self._pdfs_noticed.add(pdf)
                    emit(Notice(found["notice"]))
                del checks[name]
                continue
            record.artifacts.append(Artifact("quotes", name, "", data=found))
            if name in runner.outputs:
                runner.outputs[name] = runner.outputs[name].model_copy(update={"checks": found})
                emit(ProposalReceived(name, runner.outputs[name]))
        return checks

    async def _catch_up(self, emit: Callable[[EngineEvent], None]) -> None:
        """Take in turns another process added to this chat since it was read."""
        workspace = self.workspace
        fresh = await asyncio.to_thread(workspace.store.changed_elsewhere, workspace.session)
        if fresh is not None:
            workspace.session = fresh
            emit(reloaded(fresh))

    def _provenance(self, runner: TurnRunner, restyled: bool = False) -> Provenance:
        """Who wrote the reply, from what the turn collected (kept beside the reply, never sent)."""
        context = runner.context
        participants = self.workspace.participants(context.mode)
        names = (*participants, context.aggregator, *(row.author for row in runner.tally))
        provenance = describe(
            context.mode,
            context.style,
            {name: context.caller.model_for(name) for name in names if name in self.workspace.configs},
            participants=participants,
            answered=[name for name in participants if name in runner.outputs],
            failures=runner.failures,
            aggregator=context.aggregator,
            tally=runner.tally,
        )
        if context.mode is Mode.AUTO:
            provenance = auto_provenance(runner.record, provenance)
        return provenance.model_copy(update={"line": f"{provenance.line} · restyled"}) if restyled else provenance

    def _runner(
        self,
        mode: RunMode,
        style: Style,
        given: TurnInput,
        record: TurnRecord,
        reuse: Mapping[str, str],
        emit: Callable[[EngineEvent], None],
    ) -> TurnRunner:
        """Check the prompts, providers and PDF this turn needs (raises with one line if one is
        missing), then assemble the turn (core/turn/assembly.py) with the proposers left out."""
        workspace = self.workspace
        participants = workspace.participants(mode)
        multi = mode.is_multi
        entry = STYLES[style]
        workspace.prompts.check(
            participants,
            aggregator=multi and entry.uses_aggregator_prompts,
            deliberation=entry.prompts if multi else (),
        )
        for warning in workspace.prompts.warnings[self._prompt_warnings_shown :]:
            emit(Notice(warning))
        self._prompt_warnings_shown = len(workspace.prompts.warnings)
        left_out = self._check_providers(mode, participants, emit)
        pdf: Path | None = check_pdf(workspace.session.pdf_path) if workspace.session.pdf_path else None
        parts = TurnParts(
            providers=workspace.providers,
            configs=workspace.configs,
            settings=workspace.settings,
            prompts=workspace.prompts,
            cache=workspace.paths.cache,
            policy=CallPolicy(self.retry, self.rng, self.sleep, self.timeout_s),
            ledger=SqliteLedger(workspace.archive, workspace.session.id, uuid.uuid4().hex),
            rng=self.rng,
            emit=emit,
            spent_before=workspace.session.cost_usd,
            warned_models=self._warned_models,
            simulated=workspace.demo,
        )
        return assemble(
            parts,
            mode,
            style,
            given.query,
            record,
            participants=participants,
            pdf=pdf,
            history=given.context(workspace.session.history),
            reused=reuse,
            failures=left_out,
        )

    def _check_providers(
        self, mode: RunMode, participants: tuple[str, ...], emit: Callable[[EngineEvent], None]
    ) -> dict[str, str]:
        """A single mode needs its model; a multi mode needs the aggregator and one proposer.

        Proposers without a key are reported and left out (returned with why).
        """
        workspace = self.workspace
        if (refused := workspace.refusal(mode)) is not None:
            raise EnsembleError(refused)
        missing = [name for name in participants if name not in workspace.providers]
        reasons = {name: workspace.unavailable.get(name, f"{name} is not available") for name in missing}
        for name, reason in reasons.items():
            emit(ProposerFailed(name, reason))
        return reasons

    # ----- the one commit point --------------------------------------------------------------

    async def _commit(
        self,
        given: TurnInput,
        mode: RunMode,
        style: Style,
        record: TurnRecord,
        caller: ModelCaller | None,
        runner: TurnRunner | None,
        *,
        outcome: str,
        emit: Callable[[EngineEvent], None],
        reply: ChatMessage | None = None,
        failure: str | None = None,
    ) -> int | None:
        """Change the session once, as the turn's outcome says, and save it in a worker thread;
        returns the row of the turn's stored record (None: not stored).

        A final reply adds the input (if new) and the reply; a failure keeps the input, the
        outputs and the resubmissions; a cancel keeps only the cost. A turn that cannot be
        stored is reported (TurnNotSaved), its reply written to a recovery file; the session
        is kept in memory, so the next save that succeeds stores it too.
        """
        workspace = self.workspace
        session = workspace.session
        spent = caller.spent if caller else 0.0
        record.outcome = outcome
        record.calls = list(caller.calls) if caller else []
        record.turn_cost_usd = spent
        record.session_cost_usd = session.cost_usd + spent
        kept = outcome != "cancelled"
        history = list(session.history)
        appended: list[ChatMessage] = []
        if kept:
            history = given.base(history) if reply is not None else history
            if given.message is not None:
                history.append(given.message)
            history = with_failure(history, failure)  # a failed input keeps why; a retry answered, not
            if given.message is not None:
                appended.append(history[-1])
            if reply is not None:
                history.append(reply)
                appended = [appended[0] if appended else ChatMessage(role="user", text=given.query), reply]
            elif given.withdrawn is not None:  # a failed redo: its question is left to retry
                history = with_failure(given.base(history), failure)
        outputs = dict(runner.outputs) if runner and kept else {}
        resubmissions = list(runner.resubmissions) if runner and kept else []
        after = session.model_copy(
            update={
                "history": history,
                "resubmissions": [*session.resubmissions, *resubmissions],
                "last_outputs": {**session.last_outputs, **outputs},
                "cost_usd": session.cost_usd + spent,
                "last_mode": mode.value if kept else session.last_mode,
                "last_style": style.value if kept else session.last_style,
            }
        )
        turn = caller.ledger.turn if caller and isinstance(caller.ledger, SqliteLedger) else None
        change = TurnChange(after, appended, resubmissions, outputs, spent, record if record.calls else None, turn)
        loop = asyncio.get_running_loop()

        def waiting() -> None:
            loop.call_soon_threadsafe(emit, StatusChanged(WAITING_FOR_OTHER))

        workspace.session = after
        try:
            committed = await asyncio.shield(asyncio.to_thread(workspace.store.commit_turn, change, on_wait=waiting))
        except TranscriptError as exc:  # the turn is stored; only its Markdown copy lags
            emit(Notice(transcript_failure(exc)))
            return None
        except OSError as exc:
            recovered = None
            if reply is not None:  # the answer paid for is kept somewhere, whatever the home's state
                text = render_transcript(after.model_copy(update={"history": appended}))
                folders = recovery_folders(workspace.paths.root)
                recovered = await asyncio.shield(asyncio.to_thread(write_recovery, text, after.id, folders))
            emit(TurnNotSaved(save_failure(exc, workspace.paths.root, recovered)))
            return None
        workspace.session = committed.session
        if committed.merged:  # the chat as it now stands, this turn's messages at its end
            emit(reloaded(committed.session))
        return committed.turn_id


async def abandon_map(runner: TurnRunner | None) -> None:
    """A turn that ends without a reply cancels its mapping calls (recorded like any call)."""
    if runner is not None and runner.claim_mapping is not None:
        await runner.claim_mapping.abandon()


def reloaded(session: SessionData) -> ChatReloaded:
    return ChatReloaded(
        tuple(session.history), tuple(session.resubmissions), dict(session.last_outputs), session.cost_usd
    )
