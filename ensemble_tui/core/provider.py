"""The one small protocol every provider adapter implements, and the errors it raises.

Adapters translate each SDK's request and usage semantics into these types; the engine owns
retries, costs and everything else.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from ensemble_tui.core.text.sanitize import strip_control

Role = Literal["user", "assistant"]
ReasoningEffort = Literal["low", "medium", "high"]


@dataclass(frozen=True)
class Message:
    """One message of the conversation a model is sent: who said it and what (a chat's turn is
    two of them, the question and the reply)."""

    role: Role
    text: str


@dataclass(frozen=True)
class Usage:
    """Token counts normalised across providers.

    `input_tokens` are uncached prompt tokens (tool-use prompt tokens included);
    `cached_input_tokens` were read from a cache; `cache_write_tokens` were written to one;
    `output_tokens` include reasoning / thinking tokens, since all three bill them as output.
    `web_searches` are the searches the provider reports having run (the configuration says
    whether each one is billed or only one per call). `cost_usd` is what the provider itself says
    the call cost (OpenRouter's `usage.cost`); None means the cost is estimated from the
    configured prices.
    """

    input_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    web_searches: int = 0
    cost_usd: float | None = None

    @property
    def cost_exact(self) -> bool:
        """Whether the provider reported what the call cost, instead of the app estimating it."""
        return self.cost_usd is not None

    @property
    def empty(self) -> bool:
        return not (
            self.input_tokens
            or self.cached_input_tokens
            or self.cache_write_tokens
            or self.output_tokens
            or self.web_searches
            or self.cost_usd
        )

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.output_tokens + other.output_tokens,
            self.web_searches + other.web_searches,
            _summed_cost(self, other),
        )


def _summed_cost(a: Usage, b: Usage) -> float | None:
    """Two reported costs add up; an empty usage adds nothing; one estimated part makes the sum
    an estimate, since the reported part alone would undercount."""
    if a.cost_usd is not None and b.cost_usd is not None:
        return a.cost_usd + b.cost_usd
    if b.empty:
        return a.cost_usd
    if a.empty:
        return b.cost_usd
    return None


@dataclass(frozen=True)
class Reply:
    """A call's answer. `truncated`: the model stopped at the request's output-token limit
    (the API's own signal said so), so the text is cut short."""

    text: str
    usage: Usage = field(default_factory=Usage)
    sources: tuple[str, ...] = ()
    truncated: bool = False


@dataclass(frozen=True)
class OutputSchema:
    """A request for a reply that is one JSON object matching `schema` (a JSON Schema object).

    Each adapter asks for it with its API's own structured output: OpenAI Responses
    `text.format` (`json_schema`), Anthropic a single tool whose `input_schema` is the schema
    with `tool_choice` forcing it, Gemini `responseMimeType` + `responseJsonSchema`, Chat
    Completions `response_format` (`json_schema`). The reply's text is then that JSON object,
    serialized; the caller still validates it (a model may fill it badly).
    """

    name: str  # the format's (or tool's) name: letters, digits, underscores
    schema: Mapping[str, Any]
    description: str = ""


@dataclass(frozen=True)
class CallRequest:
    """One model call. `messages` alternate user/assistant and end with the user's turn.

    `temperature` is None when the model does not accept one; adapters then omit it.
    `reasoning_effort` is set only for models whose configuration says they offer it.
    `max_output_tokens` caps the reply's output tokens (reasoning included): the budget's
    bound on what the call can cost; each adapter sends it with its SDK's own parameter.
    `max_searches` caps the searches the same way, where the API takes such a cap.
    `output_schema` asks for a JSON reply through the API's structured output (see OutputSchema).
    """

    model: str
    system: str
    messages: tuple[Message, ...]
    pdf: Path | None = None
    temperature: float | None = None
    web_search: bool = True
    timeout_s: float = 180.0
    reasoning_effort: ReasoningEffort | None = None  # None: the model's default (off where optional)
    max_output_tokens: int | None = None  # None: the adapter's own default
    # The searches the call may run, where the API takes a cap (Anthropic `max_uses`, OpenAI
    # `max_tool_calls`): the budget's bound on its search fees (core/turn/costs.py). None: the
    # adapter's own default.
    max_searches: int | None = None
    output_schema: OutputSchema | None = None  # None: a free-text reply


class ErrorKind(enum.Enum):
    TRANSIENT = "transient"  # timeouts, connection errors, 5xx
    RATE_LIMITED = "rate_limited"  # 429
    OVERLOADED = "overloaded"  # Anthropic 529
    UNRESOLVED = "unresolved"  # the host name does not resolve: a wrong base URL, or no network
    FATAL = "fatal"  # bad key, unknown model, bad request: retrying cannot help


class ProviderError(Exception):
    """A failed call, classified. `message` is one line a user can act on."""

    def __init__(
        self, kind: ErrorKind, message: str, retry_after: float | None = None, usage: Usage | None = None
    ) -> None:
        message = strip_control(message)  # an SDK's error text may carry escapes for the terminal
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after
        self.usage = usage  # what a failed call was still billed for (a refusal mid-answer)

    @property
    def retryable(self) -> bool:
        return self.kind is not ErrorKind.FATAL


@runtime_checkable
class Provider(Protocol):
    """What the engine needs from a provider adapter."""

    label: str

    def prepare(self, pdf: Path) -> None:
        """Start uploading `pdf` in the background (once per file content); never raises."""

    async def complete(self, request: CallRequest) -> Reply:
        """Run one whole (non-streamed) call; raise ProviderError on failure.

        With `request.output_schema` set, the reply's text is the JSON object the API's own
        structured output produced (see OutputSchema)."""
        ...
