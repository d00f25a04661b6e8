"""Making the providers ready ahead of the first question, in two rounds.

Each SDK adapter offers `warm_up()` (import the SDK, build the client) and `rehearse()` (one
call answered in memory, the host name looked up: providers/rehearsal.py); this module only
calls them, so the UI and `ask` can start it without importing the providers.

A first call otherwise pays for its SDK's import (up to a second for anthropic or google-genai)
and then for the SDK's first-use work before its request goes out. The app starts this once its
first frame is drawn; `ask` starts it beside its turn. The work runs on the provider loop
(providers/io_loop.py): the caller's loop only awaits.

The rounds keep the first requests together. Every import runs first, back to back, queued
ahead of the turn's calls; then the calls go out; the rehearsals run after them, while the
models think, so the first replies are parsed at once when they arrive. Rehearsing each SDK
right after its import instead let one provider's request leave while the next SDK was still
being imported.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping

log = logging.getLogger(__name__)


async def warm_up_all(providers: Mapping[str, object]) -> None:
    """Warm every provider that offers `warm_up()`, then rehearse those that offer
    `rehearse()`; never raises: a provider that cannot build its client says so at its first
    call, as it would without this."""
    await _each(providers, "warm_up")
    await _each(providers, "rehearse")


async def _each(providers: Mapping[str, object], method: str) -> None:
    """Call `method` of every provider that has it, all queued at once; failures are logged."""
    calls: dict[str, Callable[[], Awaitable[object]]] = {
        label: getattr(provider, method) for label, provider in providers.items() if hasattr(provider, method)
    }
    results = await asyncio.gather(*(call() for call in calls.values()), return_exceptions=True)
    for label, result in zip(calls, results, strict=True):
        if isinstance(result, Exception):
            log.info("%s: %s failed: %s", label, method.replace("_", "-"), result)
