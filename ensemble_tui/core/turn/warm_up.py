"""Making the providers ready ahead of the first question: each SDK imported, its client built,
and the SDK models its calls use built (the SDKs defer that to first use).

Each SDK adapter offers `warm_up()`; this module only calls it, so the UI and `ask` can start it
without importing the providers. A first call otherwise pays for its SDK's import (up to a
second for anthropic or google-genai) before its request goes out, and for the models' builds
(~0.1 s of CPU) around it. The app starts this once its first frame is drawn; `ask` starts it
beside its turn, for the providers the turn calls. The work runs on the provider loop
(providers/io_loop.py): the caller's loop only awaits. Every warm-up is queued at once, ahead of
the turn's calls, so the first requests leave together rather than one import after another
(`ask`, which asks its question at once); the app, whose question may come at any time, warms
them one at a time instead (`warm_up_each`), so a question does not wait for every SDK.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

log = logging.getLogger(__name__)


@runtime_checkable
class Warmable(Protocol):
    """A provider that can import its SDK and build its client (and models) ahead of its first call."""

    async def warm_up(self) -> None: ...


async def warm_up_all(providers: Mapping[str, object]) -> None:
    """Call `warm_up()` of every provider that offers it, all queued at once. Never raises: a
    provider that cannot build its client says so at its first call, as it would without this."""
    warmable = {label: provider for label, provider in providers.items() if isinstance(provider, Warmable)}
    results = await asyncio.gather(*(provider.warm_up() for provider in warmable.values()), return_exceptions=True)
    for label, result in zip(warmable, results, strict=True):
        if isinstance(result, Exception):
            log.info("%s: warm-up failed: %s", label, result)


async def warm_up_each(providers: Mapping[str, object]) -> None:
    """Warm the providers one after another, each a step of its own on the provider loop, for the
    app: a question asked meanwhile has its calls queued behind the step under way, not behind
    every SDK's import (anthropic's alone is ~2 s of CPU). A first single-model question then
    goes out once its own SDK is in (or imports it itself, as without a warm-up), and an All
    question's calls go out after the step under way: the later steps (the other providers'
    model builds, pypdf) run while the calls wait for their answers. Never raises."""
    for label, provider in providers.items():
        if not isinstance(provider, Warmable):
            continue
        try:
            await provider.warm_up()
        except Exception as exc:
            log.info("%s: warm-up failed: %s", label, exc)
