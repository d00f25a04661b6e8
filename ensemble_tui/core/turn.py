"""One turn's life cycle and the calls every style shares.

A turn records its input, runs a single model or a deliberation style (registered in
STYLE_FLOWS by the style modules), and commits its results only when it ends.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ensemble_tui.core.costs import BudgetExceeded
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.events import (
    EngineEvent,
    FinalReplyReady,
    Notice,
    ProposalReceived,
    ProposerFailed,
    RunFailed,
    RunStarted,
    StatusChanged,
)
from ensemble_tui.core.modes import RunMode, Style
from ensemble_tui.core.pdf import check_pdf
from ensemble_tui.core.provider import ProviderError, Reply, Turn
from ensemble_tui.core.retry import CallRole
from ensemble_tui.core.runlog import Artifact, TurnRecord
from ensemble_tui.core.sanitize import strip_control
from ensemble_tui.core.session import ChatMessage, ModelOutput, Resubmission

if TYPE_CHECKING:
    from ensemble_tui.core.engine import Engine

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")

SENDING = "Sending requests for proposals…"
COLLECTING = "Collecting replies…"


def user_message(history: tuple[Turn, ...], *parts: str) -> tuple[Turn, ...]:
    """History plus one user turn made of `parts`, so roles always alternate."""
    return history + (Turn("user", "\n\n---\n\n".join(part.strip() for part in parts if part.strip())),)


@dataclass
class TurnRunner:
    engine: Engine
    mode: RunMode
    text: str
    emit: Callable[[EngineEvent], None]
    style: Style = Style.AGGREGATE
    outputs: dict[str, ModelOutput] = field(default_factory=dict)
    resubmissions: list[Resubmission] = field(default_factory=list)
    in_flight: dict[object, float] = field(default_factory=dict)
    added_input: bool = False
    replaced: ChatMessage | None = None  # the reply a redo took away, restored if cancelled
    round: int = 0  # proposal rounds so far (resynthesis and debate rounds count)

    def __post_init__(self) -> None:
        workspace = self.engine.workspace
        self.session = workspace.session
        self.participants = workspace.participants(self.mode)
        self.record = TurnRecord(session=self.session.id, mode=self.mode.value, style=self.style.value)
        self.pdf: Path | None = None
        self.pdf_bytes = 0

    # ----- life cycle -------------------------------------------------------------------

    async def execute(self) -> None:
        try:
            query = self._record_input()
            # The input is stored before any call; the transcript gets it with the turn's end
            # (reply or failure) rather than rewriting megabytes in a long chat twice a turn.
            self._save(transcript=False)
            self.emit(RunStarted(self.mode, query, redo=not self.text.strip()))
            self._check_ready()
            if self.mode.is_multi:
                reply = await STYLE_FLOWS[self.style](self, query)
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

    def _record_input(self) -> str:
        """Record the input (or undo the last reply for a redo); returns the query this turn
        answers. The input is recorded before any check, so a turn that cannot start is a
        failed turn like any other: its input stays in place and an empty send retries it.
        """
        query = strip_control(self.text).strip()
        if query:
            self.session.history.append(ChatMessage(role="user", text=query))
            self.added_input = True
        elif self.session.pending_input is not None:
            query = self.session.pending_input
        elif self.session.history:
            self.replaced = self.session.history.pop()  # redo: the old reply goes, its input is asked again
            query = self.session.pending_input or ""
        if not query:
            raise EnsembleError("Nothing to redo yet - type a question first.")
        self.session.last_mode = self.mode.value
        self.session.last_style = self.style.value
        self.record.query = query
        return query

    def _check_ready(self) -> None:
        """The prompts, the providers and the PDF this turn needs; raises with one line if not."""
        workspace = self.engine.workspace
        multi = self.mode.is_multi
        workspace.prompts.check(
            self.participants,
            aggregator=multi and self.style is Style.AGGREGATE,
            deliberation=STYLE_PROMPTS.get(self.style, ()) if multi else (),
        )
        for warning in workspace.prompts.warnings[self.engine.prompt_warnings_shown :]:
            self.emit(Notice(warning))
        self.engine.prompt_warnings_shown = len(workspace.prompts.warnings)
        self._check_providers()
        if self.session.pdf_path:
            self.pdf = check_pdf(self.session.pdf_path)
            self.pdf_bytes = self.pdf.stat().st_size

    def _check_providers(self) -> None:
        """A single mode needs its model; a multi mode needs the aggregator and one proposer.

        Proposers without a key are reported and left out.
        """
        workspace = self.engine.workspace
        wanted = self.participants
        if self.mode.is_multi:
            wanted = (workspace.settings.aggregator, *wanted)
        missing = [name for name in dict.fromkeys(wanted) if name not in workspace.providers]
        if not missing:
            return
        reasons = {name: workspace.unavailable.get(name, f"{name} is not available") for name in missing}
        proposers_left = [name for name in self.participants if name not in missing]
        if not self.mode.is_multi or workspace.settings.aggregator in missing or not proposers_left:
            raise EnsembleError(reasons[missing[0]])
        for name in missing:
            self.emit(ProposerFailed(name, reasons[name]))

    def _commit(self, reply: Reply | None) -> None:
        """Keep what the turn produced and save it before the reply is announced."""
        session = self.session
        session.last_outputs.update(self.outputs)
        session.resubmissions.extend(self.resubmissions)
        if reply is not None:
            session.history.append(ChatMessage(role="assistant", text=reply.text, sources=list(reply.sources)))
            self.record.artifacts.append(Artifact("final", "", reply.text, data={"sources": list(reply.sources)}))
        self._save()
        self._finish_record()

    def _roll_back(self) -> None:
        """Nothing of a cancelled run is kept (its input included) and a reply it was redoing
        comes back; only the money spent stays spent."""
        if self.added_input and self.session.history and self.session.history[-1].role == "user":
            self.session.history.pop()
        if self.replaced is not None:
            self.session.history.append(self.replaced)
        self.record.outcome = "cancelled"
        self._save()
        self._finish_record()

    def _save(self, *, transcript: bool = True) -> None:
        """Persist the session; a failed write is reported, never allowed to lose the turn."""
        try:
            self.engine.workspace.persist(transcript=transcript)
        except OSError as exc:
            self._report_save_failure(exc)

    def _report_save_failure(self, exc: OSError) -> None:
        where = exc.filename or self.engine.workspace.paths.root
        self.emit(
            Notice(
                f"Could not save {where} ({exc.strerror}) - free space or fix permissions; the chat is kept in memory."
            )
        )

    def _finish_record(self) -> None:
        if self.record.calls:
            self.engine.workspace.record_turn(self.record)

    # ----- calls ------------------------------------------------------------------------------

    def context(self) -> tuple[Turn, ...]:
        """Answered history before this turn's input."""
        return self.session.answered_turns()

    async def call(self, provider: str, role: CallRole, system: str, messages: tuple[Turn, ...]) -> Reply:
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

    def remember(self, provider: str, query: str, text: str) -> None:
        """Keep a model's latest answer for its pane and the run report."""
        workspace = self.engine.workspace
        model = workspace.model_for(provider)
        note = (getattr(workspace.providers.get(provider), "pdf_note", None) or "") if self.pdf else ""
        self.outputs[provider] = ModelOutput(query=query, text=text, model=model, note=note)
        self.record.artifacts.append(Artifact("answer", provider, text, round=self.round))
        self.emit(ProposalReceived(provider, model, query, text, note))

    # ----- single model -----------------------------------------------------------------------

    async def _run_single(self, query: str) -> Reply:
        (provider,) = self.participants
        self.emit(StatusChanged(f"Waiting for {provider}…", waiting=(provider,)))
        system = self.engine.workspace.prompts.proposer_system(provider)
        reply = await self.call(provider, "single", system, user_message(self.context(), query))
        self.remember(provider, query, reply.text)
        return reply

    # ----- proposers and aggregator -----------------------------------------------------------

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

    async def propose(self, requests: dict[str, tuple[str, tuple[Turn, ...]]], query: str) -> dict[str, Reply]:
        """A proposal round: each answer is shown in its model's pane; failures are skipped,
        and their errors never reach a prompt. Raises AllProposersFailed if none answers."""
        self.emit(StatusChanged(SENDING, waiting=tuple(requests)))
        failures: list[str] = []

        def failed(name: str, message: str) -> None:
            failures.append(message)
            self.emit(ProposerFailed(name, message))

        started = time.monotonic()
        self.round += 1
        jobs = {name: partial(self.call, name, "proposer", *request) for name, request in requests.items()}
        replies = await self.gather(
            jobs,
            status=COLLECTING,
            on_done=lambda name, reply: self.remember(name, query, reply.text),
            on_failure=failed,
        )
        self.record.proposers_s.append(round(time.monotonic() - started, 3))
        if not replies:
            raise AllProposersFailed("Every proposer failed: " + "; ".join(failures))
        return replies

    def proposers(self) -> tuple[str, ...]:
        """The mode's models that can take part (those without a key were reported)."""
        return tuple(name for name in self.participants if name in self.engine.workspace.providers)

    async def first_answers(self, query: str) -> dict[str, str]:
        """Every taking-part model answers the query as a proposer."""
        prompts = self.engine.workspace.prompts
        context = self.context()
        requests = {name: (prompts.proposer_system(name), user_message(context, query)) for name in self.proposers()}
        return {name: reply.text for name, reply in (await self.propose(requests, query)).items()}

    async def call_parsed(
        self,
        name: str,
        role: CallRole,
        system: str,
        messages: tuple[Turn, ...],
        parse: Callable[[str], T],
        repair: str,
    ) -> tuple[Reply, T | None, str | None]:
        """A call whose reply must parse; one repair request if it does not.

        Returns the last reply, the parsed value (None if both attempts failed) and the
        parse error. The repair shows the model its own reply and what was wrong with it.
        """
        reply = await self.call(name, role, system, messages)
        try:
            return reply, parse(reply.text), None
        except ValueError as first_error:
            retry_messages = messages + (
                Turn("assistant", reply.text),
                Turn("user", f"{repair}\n\nThe problem: {first_error}."),
            )
        reply = await self.call(name, role, system, retry_messages)
        try:
            return reply, parse(reply.text), None
        except ValueError as error:
            return reply, None, str(error)


def failure_message(exc: BaseException) -> str:
    """One concise line for any exception that ends a turn."""
    if isinstance(exc, ProviderError):
        return exc.message
    if isinstance(exc, (EnsembleError, BudgetExceeded)):
        return str(exc)
    return f"Unexpected error ({type(exc).__name__}: {exc}) - the chat is saved; see the log for details."


class AllProposersFailed(EnsembleError):
    """No proposer produced a proposal."""


StyleFlow = Callable[[TurnRunner, str], Awaitable[Reply]]
STYLE_FLOWS: dict[Style, StyleFlow] = {}
STYLE_PROMPTS: dict[Style, tuple[str, ...]] = {}


def register_style(style: Style, prompts: tuple[str, ...] = ()) -> Callable[[StyleFlow], StyleFlow]:
    """Each deliberation style registers the coroutine that runs its multi-model turn, and
    the `Prompts/Deliberation/` files it reads (checked before any call)."""

    def decorate(flow: StyleFlow) -> StyleFlow:
        STYLE_FLOWS[style] = flow
        STYLE_PROMPTS[style] = prompts
        return flow

    return decorate
