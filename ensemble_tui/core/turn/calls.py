"""One model call, owned whole: the request, the budget guard, the retries, the cost, the record.

A `ModelCaller` serves one turn's calls but knows nothing of turns, styles or the UI: it is given
the providers and their settings as they stood when the turn began, the money already spent,
and a list to record each attempt in. Everything a user sees of a call (its cost, a retry on
the way) leaves as an event through `emit`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ensemble_tui.core.chat.runlog import CallRecord
from ensemble_tui.core.config import ModelSpec, ProviderConfig
from ensemble_tui.core.paper.pdf import size_refusal
from ensemble_tui.core.provider import CallRequest, ErrorKind, Provider, ProviderError, Reply, Turn, Usage
from ensemble_tui.core.settings import Settings
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.core.turn.costs import check_budget, estimate_call_cost, usage_cost
from ensemble_tui.core.turn.events import CostUpdated, EngineEvent, Notice, RetryScheduled
from ensemble_tui.core.turn.retry import CallRole, RetryPolicy

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]


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
    _in_flight: dict[object, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._pdf_bytes = self.pdf.stat().st_size if self.pdf is not None else 0

    def model_for(self, provider: str) -> str:
        return self.settings.model_for(provider, self.configs)

    def request(self, provider: str, system: str, messages: tuple[Turn, ...]) -> CallRequest:
        model = self.model_for(provider)
        spec = self.configs[provider].spec_or_cautious(model)
        effort = self.settings.reasoning.get(provider, "off")
        return CallRequest(
            model=model,
            system=system,
            messages=messages,
            pdf=self.pdf,
            temperature=self.settings.temperature if spec.temperature else None,
            web_search=spec.web_search,
            timeout_s=self.policy.timeout_s,
            reasoning_effort=effort if spec.reasoning and effort != "off" else None,
        )

    async def call(self, provider: str, role: CallRole, system: str, messages: tuple[Turn, ...]) -> Reply:
        """One call with the retry policy for `role` and the budget guard before each attempt."""
        request = self.request(provider, system, messages)
        self._note_unknown_model(provider, request.model)
        adapter = self.providers[provider]
        spec = self.configs[provider].spec_or_cautious(request.model)
        config = self.configs[provider]
        if request.pdf is not None and config.pdf == "file-api":
            if (too_large := size_refusal(provider, config.api, self._pdf_bytes)) is not None:
                raise ProviderError(ErrorKind.FATAL, too_large)
        retries = 0
        while True:
            estimate = estimate_call_cost(spec, request, self._pdf_bytes)
            check_budget(
                self.spent_before + self.spent, sum(self._in_flight.values()), estimate, self.settings.budget_usd
            )
            token = object()
            self._in_flight[token] = estimate
            started = time.monotonic()
            try:
                async with asyncio.timeout(request.timeout_s + min(5.0, request.timeout_s)):
                    reply = await adapter.complete(request)
                if not reply.text.strip():
                    raise ProviderError(ErrorKind.TRANSIENT, f"{provider}: returned an empty reply", usage=reply.usage)
            except (ProviderError, TimeoutError) as exc:
                error = (
                    exc
                    if isinstance(exc, ProviderError)
                    else ProviderError(ErrorKind.TRANSIENT, f"{provider}: no answer within {request.timeout_s:g} s")
                )
                billed = error.usage or Usage()  # a refusal or an empty reply is still paid for
                self._count(provider, request.model, role, retries + 1, started, error.message, billed, spec)
                log.info("%s %s attempt %d failed: %s", provider, role, retries + 1, error.message)
                allowed = self.policy.retry.retries_allowed(role, error)
                delay = self.policy.retry.delay_s(retries + 1, error, self.policy.rng) if retries < allowed else None
                if delay is None:
                    raise error from None
                retries += 1
                self.emit(RetryScheduled(provider, retries, allowed, delay, error.message))
                await self.policy.sleep(delay)
                continue
            finally:
                self._in_flight.pop(token, None)
            self._count(provider, request.model, role, retries + 1, started, "ok", reply.usage, spec)
            sources = tuple(strip_control(url) for url in reply.sources if url.startswith(("http://", "https://")))
            return Reply(strip_control(reply.text).strip(), reply.usage, sources)

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
    ) -> None:
        """Record an attempt and what it cost; every billed attempt moves the chat's cost."""
        cost = usage_cost(spec, usage)
        self.calls.append(CallRecord(provider, model, role, attempt, time.monotonic() - started, outcome, usage, cost))
        if cost or outcome == "ok":
            self.spent += cost
            self.emit(CostUpdated(self.spent_before + self.spent))

    def _note_unknown_model(self, provider: str, model: str) -> None:
        spec = self.configs[provider].model(model)
        key = f"{provider}/{model}"
        if (spec is None or not spec.price_known) and key not in self.warned_models:
            self.warned_models.add(key)
            self.emit(Notice(f"{provider}: no prices known for {model}; its cost is estimated cautiously."))
