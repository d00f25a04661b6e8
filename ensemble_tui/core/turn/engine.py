"""The engine: starts one turn in a mode and hands out its handle (core/turn/handle.py).

A turn runs in its own task; its consumer reads the handle's typed events (core/turn/events.py)
and may cancel it. The engine is the only code that changes the session, and it stores every
change through one function, `save` (core/turn/commit.py: SessionStore.commit_turn in a worker
thread, the session assigned on the event loop's thread): the turn's outcome at its end (`_commit`:
a final reply, a failure whose input is kept for a retry, or a cancel that keeps only the money
spent), and a claim map drawn after the reply (late_map.py). The reply is announced only once
it is stored.
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, cast

from ensemble_tui.core.chat.modes import Mode, RunMode, Style
from ensemble_tui.core.chat.provenance import Provenance, describe
from ensemble_tui.core.chat.runlog import Artifact, TurnRecord
from ensemble_tui.core.chat.session import (
    ChatMessage,
    SessionData,
    answered_turns,
    brought_back,
    render_transcript,
    with_failure,
)
from ensemble_tui.core.claims.model import ClaimMap
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.paper import quote_checks
from ensemble_tui.core.paper.pdf import check_pdf
from ensemble_tui.core.provider import Message, ProviderError
from ensemble_tui.core.store.budget_ledger import SqliteLedger
from ensemble_tui.core.store.recovery import recovery_folders, write_recovery
from ensemble_tui.core.store.session_store import TurnChange
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.core.turn.assembly import TurnParts, assemble, run_turn
from ensemble_tui.core.turn.auto import auto_provenance
from ensemble_tui.core.turn.calls import CallPolicy, ModelCaller, Sleep
from ensemble_tui.core.turn.claim_mapping import ClaimMapping
from ensemble_tui.core.turn.commit import reloaded, save
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
    TurnNotSaved,
    TurnRolledBack,
)
from ensemble_tui.core.turn.failure_lines import RESTYLE_RACED, failure_message, save_failure
from ensemble_tui.core.turn.handle import TurnHandle, TurnPhase
from ensemble_tui.core.turn.late_map import LateMap
from ensemble_tui.core.turn.retry import RetryPolicy
from ensemble_tui.core.turn.runner import TurnRunner
from ensemble_tui.core.turn.styles.table import STYLES
from ensemble_tui.core.workspace import Workspace

log = logging.getLogger(__name__)

Emit = Callable[[EngineEvent], None]
NOTHING_TO_BRING_BACK = "No replaced reply to bring back: only the last redo's, until a new question."
BRING_BACK_BUSY = "A reply is under way: bring the replaced reply back once it has ended."
REQUEST_KEY = "\x00request "  # a synthesis request's key among the texts checked (no provider's name)


@dataclass(frozen=True)
class TurnInput:
    """What a turn answers, decided from the session as the turn starts (nothing is changed yet)."""

    query: str
    message: ChatMessage | None  # the new input, or None for a retry or a redo
    # The reply a redo replaces: left in the chat until the new reply is stored, and replaced in
    # that same commit; a redo that fails, is refused or is cancelled leaves it where it is.
    withdrawn: ChatMessage | None

    def base(self, history: list[ChatMessage]) -> list[ChatMessage]:
        """The history this turn's reply follows: a redo's old reply left out."""
        return history[:-1] if self.withdrawn is not None else list(history)

    def context(self, history: list[ChatMessage]) -> tuple[Message, ...]:
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
    _current: TurnHandle | None = field(default=None, repr=False)  # the last turn started
    _started: int = field(default=0, repr=False)  # turns started, for their handles' ids
    _warned_models: set[str] = field(default_factory=set, repr=False)
    _prompt_warnings_shown: int = 0  # placeholder typos are reported once each
    _pdfs_noticed: set[Path | None] = field(default_factory=set, repr=False)  # "no text layer" said once

    @property
    def running(self) -> bool:
        """Whether a turn's task is still out (its reply coming, or its late claim map)."""
        return self._current is not None and self._current.phase is not TurnPhase.DONE

    def stop(self) -> None:
        """Cancel the turn in flight, if any; it rolls back and its run ends with TurnRolledBack."""
        if self._current is not None:
            self._current.cancel()

    async def cancel(self) -> None:
        """Cancel the turn in flight, if any, and wait until it has rolled back."""
        if self._current is not None:
            self._current.cancel()
            await self._current.wait()

    def start(
        self,
        mode: RunMode,
        text: str,
        style: Style = Style.AGGREGATE,
        reuse: Mapping[str, str] | None = None,
        reused_from: int = 0,
    ) -> TurnHandle:
        """Start a turn: `text` is the new input, or empty to redo the last reply. A turn still
        out (a late claim map included) is superseded: cancelled, and rolled back before this
        one reads the session.

        `style` decides how a multi-model mode deliberates; single modes ignore it. `reuse`
        holds first proposals already in hand (model -> text): their models are not asked again;
        `reused_from` names the chat's run they come from (a restyle's), for the run record.
        """
        previous = self._current
        if previous is not None:
            previous.supersede()
        self._started += 1
        handle = TurnHandle(self._started)
        kept = dict(reuse or {})

        async def body(turn: TurnHandle) -> None:
            if previous is not None:
                await previous.wait()
            await self._turn(turn, mode, text, style, kept, reused_from)

        handle.begin(body)
        self._current = handle
        return handle

    async def run(
        self,
        mode: RunMode,
        text: str,
        style: Style = Style.AGGREGATE,
        reuse: Mapping[str, str] | None = None,
        reused_from: int = 0,
    ) -> AsyncIterator[EngineEvent]:
        """`start`'s events, the turn started at the first step (closing this cancels the turn)."""
        handle = self.start(mode, text, style, reuse, reused_from)
        try:
            async for event in handle.events:
                yield event
        finally:
            await handle.events.aclose()

    async def bring_back(self) -> ChatReloaded | str:
        """Put the reply the last redo replaced back in place of the redo's (which is kept as the
        replaced one in turn, so nothing is lost), stored through the one commit. Returns the
        chat as it now stands, or one line saying why nothing changed (a turn running, a newer
        turn, no redo, a save that failed)."""
        if self.running:
            return BRING_BACK_BUSY
        await self._catch_up(lambda _event: None)  # another process's newer turn counts too
        after = brought_back(self.workspace.session)
        if after is None:
            return NOTHING_TO_BRING_BACK
        try:
            await save(self.workspace, TurnChange(after, [], [], {}, 0.0, None), lambda _event: None)
        except OSError as exc:
            return save_failure(exc, self.workspace.paths.root, None)
        return reloaded(self.workspace.session)

    # ----- one turn ----------------------------------------------------------------------------

    async def _turn(
        self, handle: TurnHandle, mode: RunMode, text: str, style: Style, reuse: dict[str, str], reused_from: int
    ) -> None:
        emit = handle.emit
        workspace = self.workspace
        turns_known = len(workspace.session.history)
        await self._catch_up(emit)
        session = workspace.session
        if reuse and len(session.history) != turns_known:  # the proposals answer a turn no longer last
            emit(RunFailed(RESTYLE_RACED, input_kept=True))
            return
        given = turn_input(session, text)
        if not given.query:
            emit(RunFailed("Nothing to redo yet - type a question first."))
            return
        if (refused := workspace.refusal(mode)) is not None:  # a mode that cannot run leaves the chat as it was
            emit(RunFailed(refused))
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
        if map_pending:
            handle.phase = TurnPhase.MAPPING
        emit(ReplyCommitted(message, mode, claims, tuple(runner.resubmissions), map_pending=map_pending, turn_id=row))
        if map_pending and caller is not None:
            await self._settle_map(
                LateMap(workspace, record, caller, caller.spent, row, partial(save, workspace)), runner, emit
            )

    async def _map_in_hand(self, runner: TurnRunner) -> tuple[bool, ClaimMap | None]:
        """(whether the map is still out, the map if it is drawn) as the reply is ready; never waits."""
        if runner.claim_mapping is None:
            return False, None
        return await runner.claim_mapping.in_hand()

    async def _settle_map(self, late: LateMap, runner: TurnRunner, emit: Emit) -> None:
        """The map still out when the reply was committed (the MAPPING phase): awaited now, then
        kept with the run and announced (ClaimsMapped, or ClaimsLeftOut); a cancel (a new turn)
        drops it and keeps its cost (late_map.py)."""
        if runner.claim_mapping is not None:
            await late.settle(cast(ClaimMapping, runner.claim_mapping), emit)

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
        prompts = workspace.prompts.for_turn()  # each file read once a turn
        prompts.check(
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
            prompts=prompts,
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
        """Proposers without a key are reported and left out (returned with why). That the mode
        can run at all (a single mode's model, a multi mode's aggregator and one proposer) was
        checked before its input entered the chat (`_turn`)."""
        workspace = self.workspace
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

        A final reply adds the input (if new) and the reply, or, for a redo, replaces the old
        reply (kept as `replaced`, to be brought back); a failure keeps the input, the outputs
        and the resubmissions, and a failed redo leaves the chat's messages as they were; a
        cancel keeps only the cost. A turn that cannot be
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
        replaced = session.replaced
        if kept:
            # A redo's old reply goes only here, with its replacement in the same commit; a
            # failed redo leaves the chat as it was (its reply in place, nothing marked failed).
            history = given.base(history) if reply is not None else history
            if given.message is not None:
                history.append(given.message)
            history = with_failure(history, failure)  # a failed input keeps why; a retry answered, not
            if given.message is not None:
                appended.append(history[-1])
                replaced = None  # a newer turn: the reply a redo replaced can no longer come back
            if reply is not None:
                history.append(reply)
                appended = [appended[0] if appended else ChatMessage(role="user", text=given.query), reply]
                replaced = given.withdrawn
        outputs = dict(runner.outputs) if runner and kept else {}
        resubmissions = list(runner.resubmissions) if runner and kept else []
        after = session.model_copy(
            update={
                "history": history,
                "resubmissions": [*session.resubmissions, *resubmissions],
                "last_outputs": {**session.last_outputs, **outputs},
                "cost_usd": session.cost_usd + spent,
                "last_mode": mode.value if kept else session.last_mode,
                "last_style": style.value if kept and not record.calls_saved else session.last_style,  # not a restyle's
                "replaced": replaced,
            }
        )
        turn = caller.ledger.turn if caller and isinstance(caller.ledger, SqliteLedger) else None
        change = TurnChange(after, appended, resubmissions, outputs, spent, record if record.calls else None, turn)
        try:
            committed = await save(workspace, change, emit)
        except OSError as exc:
            recovered = None
            if reply is not None:  # the answer paid for is kept somewhere, whatever the home's state
                text = render_transcript(after.model_copy(update={"history": appended}))
                folders = recovery_folders(workspace.paths.root)
                recovered = await asyncio.shield(asyncio.to_thread(write_recovery, text, after.id, folders))
            emit(TurnNotSaved(save_failure(exc, workspace.paths.root, recovered)))
            return None
        return committed.turn_id if committed is not None else None


async def abandon_map(runner: TurnRunner | None) -> None:
    """A turn that ends without a reply cancels its mapping calls (recorded like any call)."""
    if runner is not None and runner.claim_mapping is not None:
        await runner.claim_mapping.abandon()
