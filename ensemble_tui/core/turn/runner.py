"""What a style works with: the turn's context, and the calls and gathering every style shares.

A `TurnRunner` is handed a `TurnContext` (the question, the chat as of the turn's start, the
prompts, who takes part, a caller) and collects what the turn produces: each model's latest
output, the resubmissions, the record of the run. It never changes the session and never
reaches back into an engine: the engine reads what it collected when the style returns, and
commits it once.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Protocol, TypeVar

from ensemble_tui.core.chat.modes import RunMode, Style
from ensemble_tui.core.chat.provenance import VoteRow
from ensemble_tui.core.chat.runlog import Artifact, TurnRecord
from ensemble_tui.core.chat.session import ModelOutput, Resubmission
from ensemble_tui.core.claims.anonymous import Redaction
from ensemble_tui.core.claims.model import ClaimMap
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.prompts import PromptLibrary
from ensemble_tui.core.provider import Message, OutputSchema, ProviderError, Reply
from ensemble_tui.core.turn.calls import ModelCaller
from ensemble_tui.core.turn.events import (
    EngineEvent,
    ProposalReceived,
    ProposerFailed,
    Resubmitted,
    StatusChanged,
    VoteCounted,
)
from ensemble_tui.core.turn.retry import CallRole


class ClaimMapper(Protocol):
    """What a runner needs of the claim map's drawing (core/turn/claim_mapping.py's
    ClaimMapping, which imports this module): started beside the final pass; taken if drawn when
    the reply is ready, else awaited after it, or abandoned by the engine."""

    def start(self, runner: TurnRunner, proposals: dict[str, str]) -> None: ...
    async def in_hand(self) -> tuple[bool, ClaimMap | None]: ...
    async def late(self) -> ClaimMap | None: ...
    async def abandon(self) -> None: ...


T = TypeVar("T")
R = TypeVar("R")

SENDING = "Sending requests for proposals…"
COLLECTING = "Collecting replies…"


def user_message(history: tuple[Message, ...], *parts: str) -> tuple[Message, ...]:
    """History plus one user turn made of `parts`, so roles always alternate."""
    return history + (Message("user", "\n\n---\n\n".join(part.strip() for part in parts if part.strip())),)


class AllProposersFailed(EnsembleError):
    """No proposer produced a proposal."""


@dataclass(frozen=True)
class TurnContext:
    """Everything a style may read, fixed when the turn starts."""

    mode: RunMode
    style: Style
    query: str
    history: tuple[Message, ...]  # the answered chat before this turn's input
    prompts: PromptLibrary
    proposers: tuple[str, ...]  # the mode's models that can take part
    aggregator: str  # also the council's chairman
    debate_rounds: int
    caller: ModelCaller
    rng: random.Random
    pdf_notes: Mapping[str, str] = field(default_factory=dict)  # provider -> how it got the PDF


@dataclass
class TurnRunner:
    """Runs the shared steps of a turn for a style and collects what they produce."""

    context: TurnContext
    emit: Callable[[EngineEvent], None]
    record: TurnRecord
    outputs: dict[str, ModelOutput] = field(default_factory=dict)
    resubmissions: list[Resubmission] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)  # proposer -> why it was left out
    tally: tuple[VoteRow, ...] = ()  # a council's, vote's or debate's result, best first
    round: int = 0  # proposal rounds so far (resynthesis and debate rounds count)
    claim_mapping: ClaimMapper | None = None  # draws the claim map beside the final pass
    reused: dict[str, str] = field(default_factory=dict)  # first proposals already in hand, not asked again

    @property
    def prompts(self) -> PromptLibrary:
        return self.context.prompts

    @property
    def rng(self) -> random.Random:
        return self.context.rng

    @cached_property
    def redaction(self) -> Redaction:
        """What every text one model wrote goes through before another reads it: the configured
        providers' labels and model ids, and the makers' names, taken out."""
        caller = self.context.caller
        names = [*caller.providers, *(caller.model_for(name) for name in caller.providers)]
        for label, config in caller.configs.items():
            names += [label, config.default_model, *(name for spec in config.models for name in (spec.id, spec.name))]
        return Redaction.of(names)

    def history(self) -> tuple[Message, ...]:
        """Answered history before this turn's input, as models read it: the replies without names."""
        return self._anonymous_history

    @cached_property
    def _anonymous_history(self) -> tuple[Message, ...]:
        return self.redaction.history(self.context.history)

    async def call(
        self,
        provider: str,
        role: CallRole,
        system: str,
        messages: tuple[Message, ...],
        output_schema: OutputSchema | None = None,
    ) -> Reply:
        return await self.context.caller.call(provider, role, system, messages, output_schema)

    def map_claims(self, proposals: Mapping[str, str]) -> None:
        """Start the claim map on these proposals, beside the pass that reads them; a later call
        (another aggregator pass) supersedes it. Nothing without a claim mapping (single-model
        turns, the map switched off)."""
        if self.claim_mapping is not None:
            self.claim_mapping.start(self, dict(proposals))

    def remember(self, provider: str, query: str, text: str) -> None:
        """Keep a model's latest answer for its pane and the run report."""
        output = ModelOutput(
            query=query,
            text=text,
            model=self.context.caller.model_for(provider),
            note=self.context.pdf_notes.get(provider, ""),
        )
        self.outputs[provider] = output
        self.record.artifacts.append(Artifact("answer", provider, text, round=self.round))
        self.emit(ProposalReceived(provider, output))

    def keep_asked_order(self, asked: list[str]) -> None:
        """Put this round's answers in the order the models were asked, not the order they came
        back, so Compare and the report list the models the same way every time."""
        artifacts = self.record.artifacts
        slots = [i for i, a in enumerate(artifacts) if a.kind == "answer" and a.round == self.round]
        rank = {name: n for n, name in enumerate(asked)}
        ordered = sorted((artifacts[i] for i in slots), key=lambda a: rank.get(a.author, len(rank)))
        for slot, artifact in zip(slots, ordered, strict=True):
            artifacts[slot] = artifact

    def resubmit(self, iteration: int, text: str) -> None:
        """Log a synthesis request sent back to the proposers."""
        resubmission = Resubmission(iteration=iteration, text=text)
        self.resubmissions.append(resubmission)
        self.record.artifacts.append(Artifact("resubmission", "", text, round=iteration))
        self.emit(Resubmitted(resubmission))

    def count_votes(self, style: Style, rows: tuple[VoteRow, ...]) -> None:
        """Keep the tally (it goes beside the reply) and show it."""
        self.tally = rows
        self.emit(VoteCounted(style, rows))

    def timed(self, started: float) -> float:
        return round(time.monotonic() - started, 3)

    # ----- single model -----------------------------------------------------------------------

    async def run_single(self) -> Reply:
        (provider,) = self.context.proposers
        query = self.context.query
        self.emit(StatusChanged(f"Waiting for {provider}…", waiting=(provider,)))
        system = self.prompts.proposer_system(provider)
        reply = await self.call(provider, "single", system, user_message(self.history(), query))
        self.remember(provider, query, reply.text)
        return reply

    # ----- proposers --------------------------------------------------------------------------

    async def gather(
        self,
        jobs: dict[str, Callable[[], Awaitable[R]]],
        *,
        status: str,
        on_done: Callable[[str, R], None] | None = None,
        on_failure: Callable[[str, str], None] | None = None,
    ) -> dict[str, R]:
        """Run one job per model concurrently, reporting progress as `status (k/n)`.

        A job whose call fails (ProviderError) is reported through `on_failure` and left out;
        the budget stop and bugs end the whole turn (the other jobs are cancelled).
        """

        async def attempt(name: str) -> tuple[str, R | ProviderError]:
            try:
                return name, await jobs[name]()
            except ProviderError as exc:
                return name, exc

        tasks = [asyncio.create_task(attempt(name)) for name in jobs]
        results: dict[str, R] = {}
        failed: set[str] = set()
        self.emit(StatusChanged(f"{status} (0/{len(tasks)})", waiting=tuple(jobs)))
        try:
            for finished in asyncio.as_completed(tasks):
                name, outcome = await finished
                if isinstance(outcome, ProviderError):
                    failed.add(name)
                    if on_failure:
                        on_failure(name, outcome.message)
                else:
                    results[name] = outcome
                    if on_done:
                        on_done(name, outcome)
                waiting = tuple(n for n in jobs if n not in results and n not in failed)
                done = len(results) + len(failed)
                self.emit(StatusChanged(f"{status} ({done}/{len(tasks)})", tuple(results), waiting))
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return results

    async def propose(self, requests: dict[str, tuple[str, tuple[Message, ...]]], query: str) -> dict[str, Reply]:
        """A proposal round: each answer is shown in its model's pane; failures are skipped,
        and their errors never reach a prompt. Raises AllProposersFailed if none answers."""
        self.emit(StatusChanged(SENDING, waiting=tuple(requests)))
        failures: list[str] = []

        def failed(name: str, message: str) -> None:
            failures.append(message)
            self.failures.setdefault(name, message)
            self.emit(ProposerFailed(name, message))

        started = time.monotonic()
        self.round += 1
        jobs = {name: partial(self.call, name, "proposer", *request) for name, request in requests.items()}
        try:
            replies = await self.gather(
                jobs,
                status=COLLECTING,
                on_done=lambda name, reply: self.remember(name, query, reply.text),
                on_failure=failed,
            )
        finally:
            self.keep_asked_order(list(requests))
        self.record.proposers_s.append(self.timed(started))
        if not replies:
            raise AllProposersFailed("Every proposer failed: " + "; ".join(failures))
        return replies

    async def first_answers(self, query: str) -> dict[str, str]:
        """Every taking-part model answers the query as a proposer; a proposal in `reused`
        (an earlier run's, for a restyle or an escalation) stands in for its model's call."""
        reused = {name: self.reused[name] for name in self.context.proposers if name in self.reused}
        asked = [name for name in self.context.proposers if name not in reused]
        answers: dict[str, str] = {}
        if asked:
            history = self.history()
            requests = {name: (self.prompts.proposer_system(name), user_message(history, query)) for name in asked}
            try:
                answers = {name: reply.text for name, reply in (await self.propose(requests, query)).items()}
            except AllProposersFailed:
                if not reused:
                    raise
        else:
            self.round += 1
        for name, text in reused.items():
            self.remember(name, query, text)
        if reused:  # propose() ordered the ones it asked; the reused ones join them in place
            self.keep_asked_order(list(self.context.proposers))
        merged = {**reused, **answers}
        return {name: merged[name] for name in self.context.proposers if name in merged}

    async def call_parsed(
        self,
        name: str,
        role: CallRole,
        system: str,
        messages: tuple[Message, ...],
        parse: Callable[[str], T],
        repair: str,
        output_schema: OutputSchema | None = None,
    ) -> tuple[Reply, T | None, str | None]:
        """A call whose reply must parse; one repair request if it does not.

        Returns the last reply, the parsed value (None if both attempts failed) and the
        parse error. The repair shows the model its own reply and what was wrong with it.
        """
        reply = await self.call(name, role, system, messages, output_schema)
        try:
            return reply, parse(reply.text), None
        except ValueError as first_error:
            retry_messages = messages + (
                Message("assistant", reply.text),
                Message("user", f"{repair}\n\nThe problem: {first_error}."),
            )
        reply = await self.call(name, role, system, retry_messages, output_schema)
        try:
            return reply, parse(reply.text), None
        except ValueError as error:
            return reply, None, str(error)
