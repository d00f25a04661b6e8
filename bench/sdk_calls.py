"""Row 1's baseline: the model calls a turn made, made again through the same SDK clients.

Row 1 compares a turn with its provider calls made bare. The bare calls must be the ones the
app makes, or the row charges the app for the protocols' own cost: OpenRouter's request carries
the PDF inline (a 1.26 MB JSON body the SDK encodes and the server reads), DeepSeek's the PDF's
text (39 KB), and every SDK builds its request and parses its reply (5-7 ms of CPU a call on
the one provider thread). `SdkCalls` records each model call where the adapter hands it to its
SDK (the client's own method and its arguments, after the adapter has built them), and
`replay` makes the same calls again, in the same waves and order, through the same clients on
the same provider loop: what is left between a turn and its replay is the app's own work (the
engine, prompts, packets, the adapters' request building and reply reading, saving the turn).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bench.apps import TimedProvider
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.anthropic_adapter import AnthropicProvider
from ensemble_tui.providers.chat_completions_adapter import ChatCompletionsProvider
from ensemble_tui.providers.gemini_adapter import GeminiProvider
from ensemble_tui.providers.io_loop import on_io_loop
from ensemble_tui.providers.openai_adapter import OpenAIProvider

# The SDK client method each adapter makes its model calls with (`_call` in each adapter).
MODEL_CALLS: dict[type, str] = {
    OpenAIProvider: "responses.create",
    ChatCompletionsProvider: "chat.completions.create",
    AnthropicProvider: "beta.messages.create",
    GeminiProvider: "aio.models.generate_content",
}


@dataclass
class SdkCall:
    """One model call as the adapter made it: the SDK's method, its arguments, and when it ran
    (perf_counter seconds: from the SDK method's start to its return)."""

    label: str
    method: Callable[..., Awaitable[Any]]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    started: float
    ended: float = float("nan")


@dataclass
class SdkCalls:
    """The model calls recorded since the last `clear`, in the order they started."""

    calls: list[SdkCall] = field(default_factory=list)

    def clear(self) -> None:
        self.calls.clear()


def record_sdk_calls(workspace: Workspace) -> SdkCalls:
    """Record every model call the adapters of `workspace` make from now on. Their SDK clients
    must exist (built by a first turn): the recorder wraps the client's model-call method."""
    recorded = SdkCalls()
    for label, provider in workspace.providers.items():
        adapter = provider.inner if isinstance(provider, TimedProvider) else provider
        path = next((path for kind, path in MODEL_CALLS.items() if isinstance(adapter, kind)), None)
        if path is None:
            raise RuntimeError(f"{label}: bench/sdk_calls.py does not know {type(adapter).__name__}'s model call")
        *owner, name = path.split(".")
        resource = functools.reduce(getattr, owner, adapter._client())  # our adapter's client, built on first use
        setattr(resource, name, _recording(label, getattr(resource, name), recorded))
    return recorded


def _recording(label: str, method: Callable[..., Awaitable[Any]], recorded: SdkCalls) -> Callable[..., Any]:
    async def call(*args: Any, **kwargs: Any) -> Any:
        made = SdkCall(label, method, args, kwargs, time.perf_counter())
        recorded.calls.append(made)
        try:
            return await method(*args, **kwargs)
        finally:
            made.ended = time.perf_counter()

    return call


def in_waves(calls: list[SdkCall], sizes: list[int]) -> list[list[SdkCall]]:
    """`calls`, in the order they started, cut into waves of `sizes` (the engine's waves: each
    engine call is one SDK call). Raises when the counts differ: an adapter that no longer
    calls the method MODEL_CALLS names, or a call made twice (a continuation, a retry)."""
    ordered = sorted(calls, key=lambda call: call.started)
    if len(ordered) != sum(sizes):
        raise RuntimeError(f"{len(ordered)} SDK calls recorded for the engine's {sum(sizes)} calls ({sizes})")
    starts = [sum(sizes[:index]) for index in range(len(sizes))]
    return [ordered[start : start + size] for start, size in zip(starts, sizes, strict=True)]


async def replay(waves: list[list[SdkCall]]) -> tuple[float, list[list[SdkCall]]]:
    """Make the calls of `waves` again, wave by wave (a wave's calls together, in their order),
    on the provider loop, each through the SDK client method the app called; the wall time from
    the first wave's start to the last answer, and the replayed calls (with their times)."""
    done: list[list[SdkCall]] = []
    started = time.perf_counter()
    for wave in waves:
        done.append(await on_io_loop(_wave(wave)))
    return time.perf_counter() - started, done


async def _wave(wave: list[SdkCall]) -> list[SdkCall]:
    async def again(call: SdkCall) -> SdkCall:
        made = SdkCall(call.label, call.method, call.args, call.kwargs, time.perf_counter())
        await call.method(*call.args, **call.kwargs)
        made.ended = time.perf_counter()
        return made

    return list(await asyncio.gather(*(again(call) for call in wave)))


def wave_gaps(groups: list[list[SdkCall]], started: float, ended: float) -> list[float]:
    """Seconds the calls did not cover: from `started` to the first request, from each wave's
    last answer to the next wave's first request, and from the last answer to `ended`."""
    edges = [started]
    for wave in groups:
        edges += [min(call.started for call in wave), max(call.ended for call in wave)]
    edges.append(ended)
    return [edges[i + 1] - edges[i] for i in range(0, len(edges), 2)]
