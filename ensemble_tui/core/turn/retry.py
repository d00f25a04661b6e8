"""The engine's retry policy: which failures are retried, how often and how long to wait."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from ensemble_tui.core.provider import ErrorKind, ProviderError

CallRole = Literal["single", "proposer", "reviewer", "aggregator", "mapper"]


@dataclass(frozen=True)
class RetryPolicy:
    proposer_retries: int = 5  # single model, proposers, reviewers and debaters
    aggregator_retries: int = 1
    aggregator_overloaded_retries: int = 3  # Anthropic 529
    base_delay_s: float = 1.0
    max_delay_s: float = 20.0
    max_retry_after_s: float = 60.0  # a longer Retry-After fails the call instead of stalling

    def retries_allowed(self, role: CallRole, error: ProviderError) -> int:
        if not error.retryable:
            return 0
        if error.kind is ErrorKind.UNRESOLVED:  # one retry covers a blip; more only delays the line
            return min(1, self.aggregator_retries if role in ("aggregator", "mapper") else self.proposer_retries)
        if role == "mapper":  # the map is optional: one retry, then it is left out
            return self.aggregator_retries
        if role == "aggregator":
            if error.kind is ErrorKind.OVERLOADED:
                return self.aggregator_overloaded_retries
            return self.aggregator_retries
        return self.proposer_retries

    def delay_s(self, retry_number: int, error: ProviderError, rng: random.Random) -> float | None:
        """Seconds before retry `retry_number` (1-based), or None if waiting is pointless.

        Exponential backoff with full jitter; a short Retry-After is honoured as a minimum.
        """
        if error.retry_after is not None and error.retry_after > self.max_retry_after_s:
            return None
        backoff = min(self.max_delay_s, self.base_delay_s * 2 ** (retry_number - 1))
        delay = rng.uniform(backoff / 2, backoff)
        if error.retry_after is not None:
            delay = max(delay, error.retry_after)
        return delay
