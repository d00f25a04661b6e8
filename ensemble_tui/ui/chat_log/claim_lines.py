"""The claim map's summary line under a reopened chat's replies, read from its run records.

The map is never part of the session (it is shown, never sent to a model), so a chat opened
from disk finds each reply's map in the run archive: the record whose final reply has that
text. Read in a thread, after the chat is shown, so opening a chat never waits for SQLite.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

if TYPE_CHECKING:
    from ensemble_tui.core.chat.session import SessionData
    from ensemble_tui.core.store.archive import RunArchive, StoredTurn
    from ensemble_tui.ui.chat_log.chat_view import MessageLog

log = logging.getLogger(__name__)


def claim_lines(turns: Sequence[StoredTurn]) -> dict[str, str]:
    """Each final reply's text -> its run's claim map summary, for the runs that have a map."""
    from ensemble_tui.core.claims.model import claims_of

    lines: dict[str, str] = {}
    for stored in turns:
        artifacts = stored.record.artifacts
        final = next((a.text for a in reversed(artifacts) if a.kind == "final"), None)
        claim_map = claims_of(artifacts) if final else None
        if final and claim_map is not None:
            lines[final] = claim_map.summary
    return lines


def load_claim_lines(log_view: MessageLog, archive: RunArchive, session_id: str) -> None:
    """Run in a thread worker: find the chat's summary lines and show them (a damaged or
    unreadable archive costs the lines, nothing else)."""
    try:
        lines = claim_lines(archive.turns(session_id))
    except (sqlite3.Error, ValueError) as exc:
        log.warning("claim lines of %s: %s", session_id, exc)
        return
    if lines and not get_current_worker().is_cancelled:
        log_view.app.call_from_thread(log_view.set_claim_lines, lines)


def start_loading(log_view: MessageLog, archive: RunArchive, session: SessionData) -> None:
    """Forget the lines of the chat shown before and look up `session`'s, if it has replies."""
    log_view.claim_lines.clear()
    if any(message.role == "assistant" for message in session.history):
        log_view.run_worker(
            partial(load_claim_lines, log_view, archive, session.id),
            thread=True,
            group="claim-lines",
            exclusive=True,
            exit_on_error=False,
        )
