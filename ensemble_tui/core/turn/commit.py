"""The one commit: every change a turn makes to the session is stored here.

The engine's `_commit` (a turn's outcome) and the late claim map (late_map.py) both call `save`.
SessionStore.commit_turn runs in a worker thread, in one transaction; `workspace.session` is then
assigned here, on the event loop's thread, and nowhere else during a turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ensemble_tui.core.chat.session import SessionData
from ensemble_tui.core.store.session_store import Committed, TranscriptError, TurnChange
from ensemble_tui.core.turn.events import ChatReloaded, EngineEvent, Notice, StatusChanged
from ensemble_tui.core.turn.failure_lines import transcript_failure
from ensemble_tui.core.workspace import Workspace

Emit = Callable[[EngineEvent], None]
WAITING_FOR_OTHER = "Another ensemble-tui is saving to this chat; waiting for it…"


async def save(workspace: Workspace, change: TurnChange, emit: Emit) -> Committed | None:
    """The one place the session is stored and assigned: `change` in one transaction
    (SessionStore.commit_turn, in a worker thread), then `workspace.session` set here, on
    the event loop's thread. Everything the change replaces is replaced in that transaction
    or not at all. Returns None if the turn is stored but its transcript lags (a line says
    so); raises OSError if it cannot be stored: the session in memory is then the changed
    one, so the next save that succeeds stores it too."""
    loop = asyncio.get_running_loop()

    def waiting() -> None:
        loop.call_soon_threadsafe(emit, StatusChanged(WAITING_FOR_OTHER))

    try:  # shielded: a cancel (Esc, a new turn) never interrupts a commit under way
        committed = await asyncio.shield(asyncio.to_thread(workspace.store.commit_turn, change, on_wait=waiting))
    except TranscriptError as exc:  # the turn is stored; only its Markdown copy lags
        workspace.session = change.session
        emit(Notice(transcript_failure(exc)))
        return None
    except BaseException:
        workspace.session = change.session
        raise
    workspace.session = committed.session
    if committed.merged:  # the chat as it now stands, this turn's messages at its end
        emit(reloaded(committed.session))
    return committed


def reloaded(session: SessionData) -> ChatReloaded:
    return ChatReloaded(
        tuple(session.history), tuple(session.resubmissions), dict(session.last_outputs), session.cost_usd
    )
