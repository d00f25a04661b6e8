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
# PDF at ~1 token per 40 bytes (text plus page images) or its pages at what the provider
# documents one costs, whichever is more, and a long answer.
CHARS_PER_TOKEN = 3
PDF_BYTES_PER_TOKEN = 40
# Input tokens per PDF page, by API (core/config.py's protocol names), as each provider documents:
# - Anthropic: each page is sent as its extracted text plus an image of the page, "typically
#   1,500-3,000 tokens per page" (docs.anthropic.com/en/docs/build-with-claude/pdf-support);
#   the upper figure is the bound.
# - Gemini: "Each document page is equivalent to 258 tokens"
#   (ai.google.dev/gemini-api/docs/document-processing, "Technical details").
# - OpenAI: "we put into the model's context both the extracted text and an image of each page"
#   (developers.openai.com/docs/guides/pdf-files) and gives no figure per page, so the bound is
#   Anthropic's, for the same text-plus-image.
# Any other API (and a page count that cannot be read) falls back on the bytes rule above.
PDF_TOKENS_PER_PAGE: dict[str, int] = {
    "anthropic-messages": 3_000,
    "gemini": 258,
    "openai-responses": 3_000,
}
# The searches one call may run, set in the request where the API takes a cap: Anthropic's web
# search tool `max_uses` ("limits the number of searches performed", docs.anthropic.com/en/docs/
# build-with-claude/tool-use/web-search-tool) and OpenAI's Responses `max_tool_calls` ("the
# maximum number of total calls to built-in tools that can be processed in a response"). A model
# whose searches are billed once per call ("per_prompt") counts one; an API with no cap (Gemini
# 3's per-query grounding, OpenRouter's plugin) can run more than this: README, "Budget".
MAX_SEARCHES_PER_CALL = 3
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


def input_bound(request: CallRequest, pdf_bytes: int, pdf_pages: int | None = None, protocol: str = "") -> int:
    """A deliberately high count of a call's input tokens: its text at CHARS_PER_TOKEN, and the
    PDF it carries at the larger of the bytes rule and the provider's documented tokens per page."""
    chars = len(request.system) + sum(len(turn.text) for turn in request.messages)
    pdf_tokens = 0
    if request.pdf is not None and pdf_bytes:
        per_page = PDF_TOKENS_PER_PAGE.get(protocol, 0)
        pdf_tokens = max(pdf_bytes // PDF_BYTES_PER_TOKEN, (pdf_pages or 0) * per_page)
    return chars // CHARS_PER_TOKEN + pdf_tokens


def search_bound(spec: ModelSpec, request: CallRequest) -> int:
    """The searches a call may be billed for: none without search, one where a call is billed
    once however often it searched, else the cap its request carries (MAX_SEARCHES_PER_CALL)."""
    if not (request.web_search and spec.web_search):
        return 0
    if spec.search_billing == "per_prompt":
        return 1
    return request.max_searches or MAX_SEARCHES_PER_CALL


def input_cost(
    spec: ModelSpec, request: CallRequest, pdf_bytes: int, pdf_pages: int | None = None, protocol: str = ""
) -> float:
    """What a call's input alone costs, at its bound: what an abandoned call is booked at when the
    provider said nothing of it (an estimate, marked so in its record)."""
    return usage_cost(spec, Usage(input_tokens=input_bound(request, pdf_bytes, pdf_pages, protocol)))


def fixed_cost(
    spec: ModelSpec, request: CallRequest, pdf_bytes: int, pdf_pages: int | None = None, protocol: str = ""
) -> float:
    """A deliberately high estimate of what a call not yet made costs before its output: its
    prompt (input_bound) and its searches (search_bound)."""
    searches = search_bound(spec, request)
    return input_cost(spec, request, pdf_bytes, pdf_pages, protocol) + searches * search_price(spec)


def estimate_call_cost(spec: ModelSpec, request: CallRequest, pdf_bytes: int) -> float:
    """A deliberately high estimate of a call not yet made, with a long answer."""
    return fixed_cost(spec, request, pdf_bytes) + EXPECTED_OUTPUT_TOKENS * _price(spec, "output") * PER_TOKEN


def output_allowance(
    spec: ModelSpec,
    request: CallRequest,
    pdf_bytes: int,
    remaining_usd: float,
    pdf_pages: int | None = None,
    protocol: str = "",
) -> tuple[int, float] | None:
    """The output-token limit the remaining budget affords for this call (never above the
    model's own limit) and the call's worst-case cost with it; None if not even
    MIN_OUTPUT_TOKENS fit (or the model's limit, when that is smaller)."""
    fixed = fixed_cost(spec, request, pdf_bytes, pdf_pages, protocol)
    per_token = _price(spec, "output") * PER_TOKEN
    ceiling = spec.max_output_tokens or DEFAULT_MAX_OUTPUT_TOKENS
    affordable = int((remaining_usd - fixed) / per_token) if per_token > 0 else ceiling
    tokens = min(ceiling, affordable)
    if tokens < min(MIN_OUTPUT_TOKENS, ceiling):
        return None
    return tokens, fixed + tokens * per_token


class BudgetExceeded(Exception):
    """Raised before a call that could take the session past its cap (or after one whose bill
    did). `spent` is money spent; `reserved` what calls in flight hold (`elsewhere`: some of
    it in another process); `unconfirmed` what calls of a process that no longer runs hold,
    reserved at `unconfirmed_since`. `reason` replaces the figures when something else stopped
    the call (the ledger could not be written, a bill past its bound). `simulated`: the money
    is a demo's (what real providers would charge), which the guard counts all the same."""

    def __init__(
        self,
        spent: float,
        cap: float,
        *,
        simulated: bool = False,
        reserved: float = 0.0,
        elsewhere: bool = False,
        unconfirmed: float = 0.0,
        unconfirmed_since: str | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(spent, cap)
        self.spent = spent
        self.cap = cap
        self.simulated = simulated
        self.reserved = reserved
        self.elsewhere = elsewhere
        self.unconfirmed = unconfirmed
        self.unconfirmed_since = unconfirmed_since
        self.reason = reason

    def figures(self) -> str:
        """ "$0.19 spent, $4.81 reserved by calls in flight (another process)": each part apart."""
        parts = [f"{cents(self.spent)} spent"]
        if self.reserved > 0:
            whose = " (another process)" if self.elsewhere else ""
            parts.append(f"{cents(self.reserved)} reserved by calls in flight{whose}")
        if self.unconfirmed > 0:
            parts.append(unconfirmed_phrase(self.unconfirmed, self.unconfirmed_since))
        return ", ".join(parts)

    def __str__(self) -> str:
        stop = "Budget stop (simulated money)" if self.simulated else "Budget stop"
        if self.reason is not None:
            return f"{stop}: {self.reason}"
        release = " (`ensemble-tui budget --release` frees it)" if self.unconfirmed > 0 else ""
        return (
            f"{stop}: the next call does not fit under this chat's {cents(self.cap)} cap: "
            f"{self.figures()}{release} - start a new chat or choose a cheaper mode."
        )


def unconfirmed_phrase(amount: float, since: str | None) -> str:
    """ "up to $0.96 unconfirmed from a turn cut off at 05:31": reservations of a process that died."""
    at = f" at {since}" if since else ""
    return f"up to {cents(amount)} unconfirmed from a turn cut off{at}"
