"""One turn: single model, or proposers plus the aggregator loop with resynthesis rounds."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ensemble_tui.core.costs import BudgetExceeded
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.events import (
    EngineEvent,
    FinalReplyReady,
    Notice,
    ProposalReceived,
    ProposerFailed,
    Resubmitted,
    RunFailed,
    RunStarted,
    StatusChanged,
)
from ensemble_tui.core.modes import Mode
from ensemble_tui.core.packet import ProposalPacket, build_packet
from ensemble_tui.core.pdf import check_pdf
from ensemble_tui.core.provider import ProviderError, Reply, Turn
from ensemble_tui.core.retry import CallRole
from ensemble_tui.core.runlog import TurnRecord, append_turn
from ensemble_tui.core.session import ChatMessage, ModelOutput, Resubmission
from ensemble_tui.core.verdict import parse_verdict

if TYPE_CHECKING:
    from ensemble_tui.core.engine import Engine

log = logging.getLogger(__name__)

MAX_AGGREGATOR_PASSES = 5
SENDING = "Sending requests for proposals…"
COLLECTING = "Collecting replies…"


def aggregating(iteration: int) -> str:
    return f"Aggregating replies, iteration {iteration}…"


def user_message(history: tuple[Turn, ...], *parts: str) -> tuple[Turn, ...]:
    """History plus one user turn made of `parts`, so roles always alternate."""
    return history + (Turn("user", "\n\n---\n\n".join(part.strip() for part in parts if part.strip())),)


@dataclass
class TurnRunner:
    engine: Engine
    mode: Mode
    text: str
    emit: Callable[[EngineEvent], None]
    outputs: dict[str, ModelOutput] = field(default_factory=dict)
    resubmissions: list[Resubmission] = field(default_factory=list)
    in_flight: dict[object, float] = field(default_factory=dict)
    added_input: bool = False

    def __post_init__(self) -> None:
        workspace = self.engine.workspace
        self.session = workspace.session
        self.record = TurnRecord(session=self.session.id, mode=self.mode.value)
        self.pdf: Path | None = None
        self.pdf_bytes = 0

    # ----- life cycle -------------------------------------------------------------------

    async def execute(self) -> None:
        try:
            query = self._begin()
            if self.mode.is_multi:
                reply = await self._run_multi(query)
            else:
                reply = await self._run_single(query)
        except asyncio.CancelledError:
            self._roll_back()
            raise
        except Exception as exc:  # every failure becomes one line; the input stays in place
            if not isinstance(exc, (EnsembleError, ProviderError, BudgetExceeded)):
                log.exception("turn failed unexpectedly")
            self.record.outcome = "failed"
            self._commit(reply=None)
            self.emit(RunFailed(failure_message(exc)))
            return
        self.record.outcome = "final"
        self._commit(reply=reply)
        self.emit(FinalReplyReady(reply.text, reply.sources, self.mode))

    def _begin(self) -> str:
        """Record the input (or undo the last reply for a redo), then check that the prompts,
        the providers and the PDF are ready. Returns the query this turn answers.

        The input is recorded first, so a turn that cannot start is a failed turn like any
        other: its input stays in place and an empty send retries it.
        """
        workspace = self.engine.workspace
        query = self.text.strip()
        if query:
            self.session.history.append(ChatMessage(role="user", text=query))
            self.added_input = True
        elif self.session.pending_input is not None:
            query = self.session.pending_input
        elif self.session.history:
            self.session.history.pop()  # redo: the old reply goes, its input is asked again
            query = self.session.pending_input or ""
        if not query:
            raise EnsembleError("Nothing to redo yet - type a question first.")
        self.session.last_mode = self.mode.value
        workspace.store.save(self.session)
        self.emit(RunStarted(self.mode, query, redo=not self.text.strip()))

        workspace.prompts.check(self.mode.providers, aggregator=self.mode.is_multi)
        self._check_providers()
        if self.session.pdf_path:
            self.pdf = check_pdf(self.session.pdf_path)
            self.pdf_bytes = self.pdf.stat().st_size
        return query

    def _check_providers(self) -> None:
        """A single mode needs its model; a multi mode needs the aggregator and one proposer.

        Proposers without a key are reported and left out.
        """
        workspace = self.engine.workspace
        wanted = self.mode.providers
        if self.mode.is_multi:
            wanted = (workspace.settings.aggregator, *wanted)
        missing = [name for name in dict.fromkeys(wanted) if name not in workspace.providers]
        if not missing:
            return
        reasons = {name: workspace.unavailable.get(name, f"{name} is not available") for name in missing}
        proposers_left = [name for name in self.mode.providers if name not in missing]
        if not self.mode.is_multi or workspace.settings.aggregator in missing or not proposers_left:
            raise EnsembleError(reasons[missing[0]])
        for name in missing:
            self.emit(ProposerFailed(name, reasons[name]))

    def _commit(self, reply: Reply | None) -> None:
        session = self.session
        session.last_outputs.update(self.outputs)
        session.resubmissions.extend(self.resubmissions)
        if reply is not None:
            session.history.append(ChatMessage(role="assistant", text=reply.text, sources=list(reply.sources)))
        self._save()

    def _roll_back(self) -> None:
        """Nothing of a cancelled run is kept (its input included); the money spent is."""
        if self.added_input and self.session.history and self.session.history[-1].role == "user":
            self.session.history.pop()
        self.record.outcome = "cancelled"
        self._save()

    def _save(self) -> None:
        """Persist the session; a failed write is reported, never allowed to lose the turn."""
        try:
            self.engine.workspace.store.save(self.session)
        except OSError as exc:
            where = exc.filename or self.engine.workspace.paths.root
            self.emit(
                Notice(
                    f"Could not save {where} ({exc.strerror}) - free space or fix permissions; "
                    "the chat is kept in memory."
                )
            )
        if self.record.calls:
            self._log_turn()

    def _log_turn(self) -> None:
        self.record.session_cost_usd = self.session.cost_usd
        try:
            append_turn(self.engine.workspace.paths.logs, self.record)
        except OSError as exc:  # a log that cannot be written must not end the turn
            log.warning("cannot write the turn log: %s", exc)

    # ----- calls ------------------------------------------------------------------------------

    def _context(self) -> tuple[Turn, ...]:
        """Answered history before this turn's input."""
        return self.session.answered_turns()

    async def _call(self, provider: str, role: CallRole, system: str, messages: tuple[Turn, ...]) -> Reply:
        request = self.engine.request(provider, system, messages, self.pdf)
        self.engine.note_unknown_model(provider, request.model, self.emit)
        return await self.engine.call(
            provider,
            role,
            request,
            record=self.record,
            in_flight=self.in_flight,
            pdf_bytes=self.pdf_bytes,
            emit=self.emit,
        )

    def _remember(self, provider: str, query: str, text: str) -> None:
        model = self.engine.workspace.model_for(provider)
        self.outputs[provider] = ModelOutput(query=query, text=text, model=model)
        self.emit(ProposalReceived(provider, model, query, text))

    # ----- single model -----------------------------------------------------------------------

    async def _run_single(self, query: str) -> Reply:
        (provider,) = self.mode.providers
        self.emit(StatusChanged(f"Waiting for {provider}…", waiting=(provider,)))
        system = self.engine.workspace.prompts.proposer_system(provider)
        reply = await self._call(provider, "single", system, user_message(self._context(), query))
        self._remember(provider, query, reply.text)
        return reply

    # ----- proposers and aggregator -----------------------------------------------------------

    async def _proposal(self, name: str, system: str, messages: tuple[Turn, ...]) -> tuple[str, Reply | ProviderError]:
        try:
            return name, await self._call(name, "proposer", system, messages)
        except ProviderError as exc:
            return name, exc

    async def _gather(self, requests: dict[str, tuple[str, tuple[Turn, ...]]], query: str) -> dict[str, Reply]:
        """Run proposer calls concurrently; a proposer that fails is reported and skipped.

        Its error never enters the packet. The budget stop and bugs end the whole turn.
        """
        self.emit(StatusChanged(SENDING, waiting=tuple(requests)))
        started = time.monotonic()
        tasks = [asyncio.create_task(self._proposal(name, *request)) for name, request in requests.items()]
        replies: dict[str, Reply] = {}
        failures: dict[str, str] = {}
        self.emit(StatusChanged(f"{COLLECTING} (0/{len(tasks)})", waiting=tuple(requests)))
        try:
            for finished in asyncio.as_completed(tasks):
                name, outcome = await finished
                if isinstance(outcome, ProviderError):
                    failures[name] = outcome.message
                    self.emit(ProposerFailed(name, outcome.message))
                else:
                    replies[name] = outcome
                    self._remember(name, query, outcome.text)
                waiting = tuple(n for n in requests if n not in replies and n not in failures)
                done = len(replies) + len(failures)
                self.emit(StatusChanged(f"{COLLECTING} ({done}/{len(tasks)})", tuple(replies), waiting))
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        self.record.proposers_s.append(round(time.monotonic() - started, 3))
        if not replies:
            raise AllProposersFailed("Every proposer failed: " + "; ".join(failures.values()))
        return replies

    async def _run_multi(self, query: str) -> Reply:
        workspace = self.engine.workspace
        prompts = workspace.prompts
        proposers = tuple(name for name in self.mode.providers if name in workspace.providers)
        context = self._context()
        first_round = {name: (prompts.proposer_system(name), user_message(context, query)) for name in proposers}
        proposals = {name: reply.text for name, reply in (await self._gather(first_round, query)).items()}
        aggregator = workspace.settings.aggregator
        for iteration in range(1, MAX_AGGREGATOR_PASSES + 1):
            forced = iteration == MAX_AGGREGATOR_PASSES
            packet = build_packet(proposals, self.engine.rng)
            self.emit(StatusChanged(aggregating(iteration), answered=tuple(proposals)))
            started = time.monotonic()
            output = await self._call(
                aggregator,
                "aggregator",
                prompts.aggregator_system(),
                user_message(context, query, prompts.aggregator_user(forced=forced) + "\n\n" + packet.render()),
            )
            self.record.aggregator_s.append(round(time.monotonic() - started, 3))
            verdict = parse_verdict(output.text)
            if verdict.kind == "final" or forced:
                text = verdict.text or output.text
                return Reply(text, output.usage, output.sources)
            proposals.update(await self._resynthesize(query, context, packet, verdict.text, iteration))
        raise AssertionError("unreachable: the last pass is always final")

    async def _resynthesize(
        self, query: str, context: tuple[Turn, ...], packet: ProposalPacket, remarks: str, iteration: int
    ) -> dict[str, str]:
        """Send every proposer the packet and the aggregator's remarks; collect revisions.

        A proposer whose revision fails keeps its previous proposal.
        """
        prompts = self.engine.workspace.prompts
        request_text = packet.render() + "\n\n# Remarks from the aggregator\n" + (remarks or "(none)")
        self.resubmissions.append(Resubmission(iteration=iteration, text=request_text))
        self.emit(Resubmitted(iteration, request_text))
        requests = {
            name: (
                prompts.proposer_system(name),
                user_message(
                    context,
                    query,
                    prompts.synthesis_user(name)
                    + "\n\n"
                    + request_text
                    + f"\n\nYour own proposal was Proposed Reply {packet.number_of(name)}.",
                ),
            )
            for name in packet.authors
        }
        try:
            replies = await self._gather(requests, query)
        except AllProposersFailed:
            return {}
        return {name: reply.text for name, reply in replies.items()}


def failure_message(exc: BaseException) -> str:
    """One concise line for any exception that ends a turn."""
    if isinstance(exc, ProviderError):
        return exc.message
    if isinstance(exc, (EnsembleError, BudgetExceeded)):
        return str(exc)
    return f"Unexpected error ({type(exc).__name__}: {exc}) - the chat is saved; see the log for details."


class AllProposersFailed(EnsembleError):
    """No proposer produced a proposal."""
