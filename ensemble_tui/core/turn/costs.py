"""Call costs (as the provider reports them, or estimated from configured prices), and the
budget guard that stops a run before the cap."""

from __future__ import annotations

from ensemble_tui.core.config import CAUTIOUS_PRICES, CAUTIOUS_SEARCH_PRICE, ModelSpec
from ensemble_tui.core.provider import CallRequest, Usage

PER_TOKEN = 1 / 1_000_000
# A cautious guess at one call before it is made: prompt text at ~3 characters per token, the
# PDF at ~1 token per 40 bytes (text plus page images), and a long answer.
CHARS_PER_TOKEN = 3
PDF_BYTES_PER_TOKEN = 40
EXPECTED_OUTPUT_TOKENS = 4_000


def _price(spec: ModelSpec, field: str) -> float:
    value = getattr(spec, field)
    if value is not None:
        return value
    if field == "cached_input" and spec.input is not None:
        return spec.input
    if field == "cache_write" and spec.input is not None:
        return spec.input * 1.25
    return CAUTIOUS_PRICES[field]


def search_price(spec: ModelSpec) -> float:
    return spec.web_search_per_call if spec.web_search_per_call is not None else CAUTIOUS_SEARCH_PRICE


def billed_searches(spec: ModelSpec, usage: Usage) -> int:
    """The searches of one call that are billed: each one, or one per call that searched."""
    if spec.search_billing == "per_prompt":
        return min(usage.web_searches, 1)
    return usage.web_searches


def usage_cost(spec: ModelSpec, usage: Usage) -> float:
    """USD for one call's usage: what the provider reported it cost when it did (OpenRouter),
    else an estimate: cached tokens at the cached price, reasoning as output, billed searches.
    `usage.cost_exact` tells the two apart."""
    if usage.cost_usd is not None:
        return usage.cost_usd
    return (
        usage.input_tokens * _price(spec, "input")
        + usage.cached_input_tokens * _price(spec, "cached_input")
        + usage.cache_write_tokens * _price(spec, "cache_write")
        + usage.output_tokens * _price(spec, "output")
    ) * PER_TOKEN + billed_searches(spec, usage) * search_price(spec)


def call_cost(spec: ModelSpec, usage: Usage) -> tuple[float, bool]:
    """USD for one call and whether the provider reported it (True) or it is estimated (False)."""
    return usage_cost(spec, usage), usage.cost_exact


def estimate_call_cost(spec: ModelSpec, request: CallRequest, pdf_bytes: int) -> float:
    """A deliberately high estimate of a call not yet made, for the budget guard."""
    chars = len(request.system) + sum(len(turn.text) for turn in request.messages)
    input_tokens = chars // CHARS_PER_TOKEN + pdf_bytes // PDF_BYTES_PER_TOKEN
    guess = Usage(input_tokens=input_tokens, output_tokens=EXPECTED_OUTPUT_TOKENS)
    searches = 1 if request.web_search and spec.web_search else 0
    return usage_cost(spec, guess) + searches * search_price(spec)


class BudgetExceeded(Exception):
    """Raised before a call that could take the session past its cap."""

    def __init__(self, spent: float, cap: float) -> None:
        super().__init__(spent, cap)
        self.spent = spent
        self.cap = cap

    def __str__(self) -> str:
        return (
            f"Budget stop: the next call could take this session past its ${self.cap:.2f} cap "
            f"(${self.spent:.2f} spent) - start a new chat or choose a cheaper mode."
        )


def check_budget(spent: float, in_flight: float, next_call: float, cap: float) -> None:
    """Raise BudgetExceeded if spent + calls under way + this call would pass the cap."""
    if spent + in_flight + next_call > cap:
        raise BudgetExceeded(spent, cap)
