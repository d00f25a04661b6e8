"""A turn's quote checks: the final reply and every proposal, against the session's PDF.

The paper's index is built as the turn starts (`warm`), beside the model calls, so that the
checks at its end take milliseconds; both run in a worker thread, never on the event loop. A
PDF that cannot be checked gives a notice, never an error: the turn is never affected.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ensemble_tui.core.paper.quotes import check_replies_against_pdf, check_reply_against_pdf

log = logging.getLogger(__name__)


def warm(pdf: Path | None, cache_dir: Path) -> asyncio.Task[Any] | None:
    """Start reading the paper's text (once per content; cached) while the models answer."""
    if pdf is None:
        return None
    return asyncio.create_task(asyncio.to_thread(check_reply_against_pdf, "", pdf, cache_dir))


async def check_texts(
    texts: Mapping[str, str], pdf: Path | None, cache_dir: Path, warming: asyncio.Task[Any] | None = None
) -> dict[str, dict[str, Any]]:
    """Each text's checks (`QuoteReport.as_record()`), by its key; {} without a PDF."""
    if pdf is None or not texts:
        return {}
    if warming is not None:
        await asyncio.gather(warming, return_exceptions=True)

    def check_all() -> dict[str, dict[str, Any]]:
        return {key: report.as_record() for key, report in check_replies_against_pdf(texts, pdf, cache_dir).items()}

    try:
        return await asyncio.to_thread(check_all)
    except Exception:  # a bug in a check must not cost the reply
        log.exception("quote check failed")
        return {}
