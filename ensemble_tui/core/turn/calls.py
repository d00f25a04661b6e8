"""One model call, owned whole: the request, the budget guard, the retries, the cost, the record.

A `ModelCaller` serves one turn's calls but knows nothing of turns, styles or the UI: it is given
the providers and their settings as they stood when the turn began, the money already spent,
and a list to record each attempt in. Everything a user sees of a call (its cost, a retry on
the way) leaves as an event through `emit`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ensemble_tui.core.chat.runlog import CallRecord
from ensemble_tui.core.config import ModelSpec, ProviderConfig
from ensemble_tui.core.paper.pdf import pdf_info, size_refusal
from ensemble_tui.core.provider import (
    CallRequest,
    ErrorKind,
    Message,
    OutputSchema,
    Provider,
    ProviderError,
    Reply,
    Usage,
)
from ensemble_tui.core.settings import Settings
from ensemble_tui.core.store.budget_ledger import (
    BudgetLedger,
    BudgetRefused,
    LedgerUnwritable,
    LocalLedger,
    Reservation,
    ReservationsInFlight,
    ReserveOp,
    SettleOp,
)
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.core.turn.costs import (
    MAX_SEARCHES_PER_CALL,
    BudgetExceeded,
    input_bound,
    output_allowance,
    unconfirmed_phrase,
    usage_cost,
)
from ensemble_tui.core.turn.events import CostUpdated, EngineEvent, Notice, RetryScheduled, StatusChanged
from ensemble_tui.core.turn.ledger_desk import LedgerDesk
from ensemble_tui.core.turn.retry import CallRole, RetryPolicy

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]

# How often a call kept waiting by other calls in flight looks at the ledger again (it waits for
# calls to settle, in this process or another one: real time, not a retry's backoff).
RESERVATION_POLL_S = 0.25
WAITING_FOR_RESERVATIONS = "Budget: waiting for calls in flight to settle ({reserved} reserved{whose})…"


@dataclass(frozen=True)
class CallPolicy:
    """How calls are made, the same for every turn of an engine: retries, waits, time limit."""

    retry: RetryPolicy = field(default_factory=RetryPolicy)
    rng: random.Random = field(default_factory=random.Random)
    sleep: Sleep = asyncio.sleep
    timeout_s: float = 180.0


@dataclass
class ModelCaller:
    """Makes the calls of one turn against a fixed set of providers and settings."""

    providers: Mapping[str, Provider]
    configs: Mapping[str, ProviderConfig]
    settings: Settings
    policy: CallPolicy
    emit: Callable[[EngineEvent], None]
    pdf: Path | None = None
    spent_before: float = 0.0  # the chat's cost when the turn began
    calls: list[CallRecord] = field(default_factory=list)
    warned_models: set[str] = field(default_factory=set)  # shared across turns: one notice per model
    spent: float = 0.0  # what this caller's calls cost so far
    # Where each call's worst case is reserved before it is sent: the home's History.sqlite3
    # (shared by every process) in the app; this turn alone by default.
    ledger: BudgetLedger = field(default_factory=LocalLedger)
    simulated: bool = False  # a demo's calls: its budget stop says the money is simulated

    def __post_init__(self) -> None:
        self._pdf_bytes = self.pdf.stat().st_size if self.pdf is not None else 0
        self._pdf_pages = pdf_info(self.pdf).pages if self.pdf is not None else None
        self._unconfirmed_noted = False  # the chat's unconfirmed reservations are told once a turn
        self._began = time.monotonic()  # each call's record says when it started, from here
        self._desk = LedgerDesk(self.ledger)  # the calls' reservations and settlements, batched

    def model_for(self, provider: str) -> str:
        return self.settings.model_for(provider, self.configs)

    def request(
        self, provider: str, system: str, messages: tuple[Message, ...], output_schema: OutputSchema | None = None
    ) -> CallRequest:
        """The call's request; one asking for JSON (`output_schema`) reads only its messages:
        no PDF, no web search."""
        model = self.model_for(provider)
        spec = self.configs[provider].spec_or_cautious(model)
        effort = self.settings.reasoning.get(provider, "off")
        return CallRequest(
            model=model,
            system=system,
            messages=messages,
            pdf=self.pdf if output_schema is None else None,
            temperature=self.settings.temperature if spec.temperature else None,
            web_search=spec.web_search and output_schema is None,
            max_searches=MAX_SEARCHES_PER_CALL if spec.web_search and output_schema is None else None,
            timeout_s=self.policy.timeout_s,
            reasoning_effort=effort if spec.reasoning and effort != "off" else None,
            output_schema=output_schema,
        )

    async def call(
        self,
        provider: str,
        role: CallRole,
        system: str,
        messages: tuple[Message, ...],
        output_schema: OutputSchema | None = None,
    ) -> Reply:
        """One call with the retry policy for `role`; before each attempt its worst case is
        reserved against the chat's budget, and the attempt is sent with the output-token
        limit that reservation affords. `output_schema`: the reply is JSON (see OutputSchema)."""
        asked = self.request(provider, system, messages, output_schema)
        self._note_unknown_model(provider, asked.model)
        adapter = self.providers[provider]
        spec = self.configs[provider].spec_or_cautious(asked.model)
        config = self.configs[provider]
        if asked.pdf is not None and config.pdf == "file-api":
            if (too_large := size_refusal(provider, config.api, self._pdf_bytes)) is not None:
                raise ProviderError(ErrorKind.FATAL, too_large)
        # The provider's documented tokens per page apply only where the PDF goes as a file.
        protocol = config.api if config.pdf == "file-api" else ""
        retries = 0
        while True:
            reservation = await self._reserve(spec, asked, protocol)
            request = replace(asked, max_output_tokens=reservation.output_tokens)
            started = time.monotonic()
            try:
                async with asyncio.timeout(request.timeout_s + min(5.0, request.timeout_s)):
                    reply = await adapter.complete(request)
                if not reply.text.strip():
                    kind = ErrorKind.FATAL if reply.truncated else ErrorKind.TRANSIENT
                    why = f"used its whole {reservation.output_tokens:,}-token output limit" if reply.truncated else ""
                    raise ProviderError(kind, f"{provider}: returned an empty reply {why}".strip(), usage=reply.usage)
            except (ProviderError, TimeoutError) as exc:
                error = (
                    exc
                    if isinstance(exc, ProviderError)
                    else ProviderError(ErrorKind.TRANSIENT, f"{provider}: no answer within {request.timeout_s:g} s")
                )
                if isinstance(exc, ProviderError):  # the provider answered: what it reported, or nothing
                    billed = error.usage or Usage()  # a refusal or an empty reply is still paid for
                    cost = self._count(provider, request.model, role, retries + 1, started, error.message, billed, spec)
                else:  # abandoned by this client's own time limit: the provider said nothing of it
                    cost = self._abandoned(provider, request, role, retries + 1, started, spec, protocol, error.message)
                await self._settle(reservation, cost)
                self._check_overrun(provider, cost, reservation)
                log.info("%s %s attempt %d failed: %s", provider, role, retries + 1, error.message)
                allowed = self.policy.retry.retries_allowed(role, error)
                delay = self.policy.retry.delay_s(retries + 1, error, self.policy.rng) if retries < allowed else None
                if delay is None:
                    raise error from None
                retries += 1
                self.emit(RetryScheduled(provider, retries, allowed, delay, error.message))
                await self.policy.sleep(delay)
                continue
            except asyncio.CancelledError:
                # Sent, then abandoned: no bill comes back, so it counts at its input alone, an
                # estimate (README, "Budget": what each provider bills for an abandoned request).
                cost = self._abandoned(provider, request, role, retries + 1, started, spec, protocol, "cancelled")
                with contextlib.suppress(Exception):
                    await self._settle(reservation, cost)
                raise
            cost = self._count(provider, request.model, role, retries + 1, started, "ok", reply.usage, spec)
            await self._settle(reservation, cost)
            self._check_overrun(provider, cost, reservation)
            text = strip_control(reply.text).strip()
            if reply.truncated:
                limit = f"{reservation.output_tokens:,}-token output limit"
                self.emit(Notice(f"{provider}: the reply was cut at its {limit}."))
                text += f"\n\n*(Cut short at the {limit}.)*"
            sources = tuple(strip_control(url) for url in reply.sources if url.startswith(("http://", "https://")))
            return Reply(text, reply.usage, sources, reply.truncated)

    async def _reserve(self, spec: ModelSpec, request: CallRequest, protocol: str) -> Reservation:
        """Reserve the call's worst case (BudgetExceeded if it does not fit). A call kept out only
        by calls still in flight waits for them to settle, at most as long as a call may take,
        and the status says so. The ledger may wait for another process's lock, so it runs in a
        thread; a reservation made while this turn was cancelled is given back."""
        cap = self.settings.budget_usd

        def size(remaining: float) -> tuple[int, float] | None:
            return output_allowance(spec, request, self._pdf_bytes, remaining, self._pdf_pages, protocol)

        deadline = time.monotonic() + request.timeout_s + min(5.0, request.timeout_s)
        waiting = False
        while True:
            pending = asyncio.ensure_future(self._desk.reserve(ReserveOp(self.spent_before, cap, size)))
            try:
                reservation = await asyncio.shield(pending)
            except ReservationsInFlight as refused:
                if time.monotonic() >= deadline:
                    raise self._refusal(refused) from None
                if not waiting:
                    waiting = True
                    whose = " by another process" if refused.tally.in_flight_elsewhere > 0 else ""
                    reserved = f"${refused.tally.in_flight:.2f}"
                    self.emit(StatusChanged(WAITING_FOR_RESERVATIONS.format(reserved=reserved, whose=whose)))
                await asyncio.sleep(RESERVATION_POLL_S)
            except BudgetRefused as refused:
                raise self._refusal(refused) from None
            except LedgerUnwritable as failed:
                reason = (
                    f"the budget ledger in History.sqlite3 cannot be written ({failed.reason}), so no paid "
                    "call is sent - free some disk space or fix the home's permissions, then retry."
                )
                raise BudgetExceeded(0.0, cap, simulated=self.simulated, reason=reason) from None
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await self._settle(await pending, 0.0)  # never sent: nothing billed
                raise
            else:
                if reservation.unconfirmed > 0 and not self._unconfirmed_noted:
                    self._unconfirmed_noted = True
                    phrase = unconfirmed_phrase(reservation.unconfirmed, reservation.unconfirmed_since)
                    self.emit(Notice(f"Budget: this chat counts {phrase} (`ensemble-tui budget --release` frees it)."))
                return reservation

    def _refusal(self, refused: BudgetRefused) -> BudgetExceeded:
        tally = refused.tally
        return BudgetExceeded(
            tally.spent,
            refused.cap,
            simulated=self.simulated,
            reserved=tally.in_flight,
            elsewhere=tally.in_flight_elsewhere > 0,
            unconfirmed=tally.unconfirmed,
            unconfirmed_since=tally.unconfirmed_since,
        )

    def _abandoned(
        self,
        provider: str,
        request: CallRequest,
        role: CallRole,
        attempt: int,
        started: float,
        spec: ModelSpec,
        protocol: str,
        outcome: str,
    ) -> float:
        """Record a call sent and then abandoned, of which no bill came back: its input alone, at
        the bound it was reserved with, marked as an estimate (CallRecord.estimated)."""
        usage = Usage(input_tokens=input_bound(request, self._pdf_bytes, self._pdf_pages, protocol))
        cost = self._count(provider, request.model, role, attempt, started, outcome, usage, spec)
        self.calls[-1].estimated = True
        return cost

    def _check_overrun(self, provider: str, cost: float, reservation: Reservation) -> None:
        """A bill past the call's worst case that takes the chat past its cap stops the turn
        here: no further call is sent on a bound that proved wrong (README, "Budget")."""
        cap = self.settings.budget_usd
        total = self.spent_before + self.spent
        if cost > reservation.worst_usd + 1e-9 and total > cap:
            reason = (
                f"{provider} billed ${cost:.4f}, more than the ${reservation.worst_usd:.4f} it was bounded at, "
                f"which takes this chat to ${total:.2f}, past its ${cap:.2f} cap - the turn stops here."
            )
            raise BudgetExceeded(total, cap, simulated=self.simulated, reason=reason)

    async def _settle(self, reservation: Reservation, billed: float) -> None:
        """Settle a reservation to what was billed; finished even if the turn is cancelled meanwhile."""
        await asyncio.shield(asyncio.ensure_future(self._desk.settle(SettleOp(reservation, billed))))

    def _count(
        self,
        provider: str,
        model: str,
        role: CallRole,
        attempt: int,
        started: float,
        outcome: str,
        usage: Usage,
        spec: ModelSpec,
    ) -> float:
        """Record an attempt and what it cost (returned); every billed attempt moves the chat's cost."""
        cost = usage_cost(spec, usage)
        self._record(provider, model, role, attempt, started, outcome, usage, cost)
        return cost

    def _record(
        self,
        provider: str,
        model: str,
        role: CallRole,
        attempt: int,
        started: float,
        outcome: str,
        usage: Usage,
        cost: float,
    ) -> None:
        now = time.monotonic()
        record = CallRecord(provider, model, role, attempt, now - started, outcome, usage, cost)
        record.started_s = round(started - self._began, 3)
        self.calls.append(record)
        if cost or outcome == "ok":
            self.spent += cost
            self.emit(CostUpdated(self.spent_before + self.spent))

    def _note_unknown_model(self, provider: str, model: str) -> None:
        spec = self.configs[provider].model(model)
        key = f"{provider}/{model}"
        if (spec is None or not spec.price_known) and key not in self.warned_models:
            self.warned_models.add(key)
            self.emit(Notice(f"{provider}: no prices known for {model}; its cost is estimated cautiously."))
