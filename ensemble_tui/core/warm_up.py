"""Importing the SDKs and building their clients ahead of the first question.

Each SDK adapter offers `warm_up()` (providers/base.py: import + client, no request); this
module only calls it, so the UI and `ask` can start it without importing the providers.

A first call otherwise pays for its SDK's import (up to a second for anthropic or google-genai)
before its request goes out. The app starts this once its first frame is drawn; `ask` starts it
beside its turn, so it overlaps reading the chat, the PDF checks and the uploads. The work runs
on the provider loop (providers/io_loop.py): the caller's loop only awaits, and the imports,
queued there ahead of the first calls, run one at a time.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

log = logging.getLogger(__name__)


async def warm_up_all(providers: Mapping[str, object]) -> None:
    """Warm every provider that offers `warm_up()`, all queued at once; never raises:
    a provider that cannot build its client says so at its first call, as it would without this."""
    labels = [label for label, provider in providers.items() if hasattr(provider, "warm_up")]
    results = await asyncio.gather(
        *(providers[label].warm_up() for label in labels),  # type: ignore[attr-defined]
        return_exceptions=True,
    )
    for label, result in zip(labels, results, strict=True):
        if isinstance(result, Exception):
            log.info("%s: warm-up failed: %s", label, result)
