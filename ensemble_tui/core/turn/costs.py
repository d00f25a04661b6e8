"""Call costs (as the provider reports them, or estimated from configured prices), and the
budget guard that stops a run before the cap.

The guard is a hard cap: each call is sent with an output-token limit (`output_allowance`), so
its worst case is its (high) input estimate, its searches and the limit's worth of output, and
that worst case is reserved against the chat's budget before the call goes out
(core/store/budget_ledger.py)."""

from __future__ import annotations

from ensemble_tui.core.config import CAUTIOUS_PRICES, CAUTIOUS_SEARCH_PRICE, ModelSpec
from ensemble_tui.core.money import cents
from ensemble_tui.core.provider import CallRequest, Usage

PER_TOKEN = 1 / 1_000_000
# A cautious guess at one call before it is made: prompt text at ~3 characters per token, the
# PDF at ~1 token per 40 bytes (text plus page images), and a long answer.
CHARS_PER_TOKEN = 3
PDF_BYTES_PER_TOKEN = 40
EXPECTED_OUTPUT_TOKENS = 4_000
# The output-token limit of a model whose configuration does not give one, and the smallest
# limit worth sending (the long answer the guard has always expected): below it the call is
# refused as over the budget instead of sent to be cut short.
DEFAULT_MAX_OUTPUT_TOKENS = 32_000
MIN_OUTPUT_TOKENS = EXPECTED_OUTPUT_TOKENS


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


def fixed_cost(spec: ModelSpec, request: CallRequest, pdf_bytes: int) -> float:
    """A deliberately high estimate of what a call not yet made costs before its output: its
    prompt and its search."""
    chars = len(request.system) + sum(len(turn.text) for turn in request.messages)
    input_tokens = chars // CHARS_PER_TOKEN + pdf_bytes // PDF_BYTES_PER_TOKEN
    searches = 1 if request.web_search and spec.web_search else 0
    return usage_cost(spec, Usage(input_tokens=input_tokens)) + searches * search_price(spec)


def estimate_call_cost(spec: ModelSpec, request: CallRequest, pdf_bytes: int) -> float:
    """A deliberately high estimate of a call not yet made, with a long answer."""
    return fixed_cost(spec, request, pdf_bytes) + EXPECTED_OUTPUT_TOKENS * _price(spec, "output") * PER_TOKEN


def output_allowance(
    spec: ModelSpec, request: CallRequest, pdf_bytes: int, remaining_usd: float
) -> tuple[int, float] | None:
    """The output-token limit the remaining budget affords for this call (never above the
    model's own limit) and the call's worst-case cost with it; None if not even
    MIN_OUTPUT_TOKENS fit (or the model's limit, when that is smaller)."""
    fixed = fixed_cost(spec, request, pdf_bytes)
    per_token = _price(spec, "output") * PER_TOKEN
    ceiling = spec.max_output_tokens or DEFAULT_MAX_OUTPUT_TOKENS
    affordable = int((remaining_usd - fixed) / per_token) if per_token > 0 else ceiling
    tokens = min(ceiling, affordable)
    if tokens < min(MIN_OUTPUT_TOKENS, ceiling):
        return None
    return tokens, fixed + tokens * per_token


class BudgetExceeded(Exception):
    """Raised before a call that could take the session past its cap. `simulated`: the money is
    a demo's (what real providers would charge), which the guard counts all the same."""

    def __init__(self, spent: float, cap: float, *, simulated: bool = False) -> None:
        super().__init__(spent, cap)
        self.spent = spent
        self.cap = cap
        self.simulated = simulated

    def __str__(self) -> str:
        stop = "Budget stop (simulated money)" if self.simulated else "Budget stop"
        return (
            f"{stop}: the next call could take this session past its {cents(self.cap)} cap "
            f"({cents(self.spent)} spent) - start a new chat or choose a cheaper mode."
        )
