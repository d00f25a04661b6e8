"""A claim map drawn after its turn's reply was committed: kept with the run, paid for, shown.

The reply never waits for the map (core/turn/claim_mapping.py). When the map is still out at
the reply, the engine commits the reply, announces it (ReplyCommitted.map_pending), and then
awaits the map here. Once it is drawn, or left out, or dropped by a cancel (a new turn, the app
closing), what its calls cost is added to the chat as any turn's cost is (SessionStore.
commit_turn, so another process's turns are merged, not overwritten), and the run's stored
record is rewritten with the map and those calls. Only a map drawn to the end is announced
(ClaimsMapped), after it is stored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.store.budget_ledger import SqliteLedger
from ensemble_tui.core.store.session_store import TranscriptError, TurnChange
from ensemble_tui.core.turn.calls import ModelCaller
from ensemble_tui.core.turn.events import ClaimsMapped, EngineEvent, Notice
from ensemble_tui.core.turn.runner import ClaimMapper
from ensemble_tui.core.workspace import Workspace

log = logging.getLogger(__name__)


@dataclass
class LateMap:
    """The map of a committed turn: `spent` is what the turn's calls had cost at its commit,
    `turn_id` its record's row in the archive (None: not stored, nothing to amend)."""

    workspace: Workspace
    record: TurnRecord
    caller: ModelCaller
    spent: float
    turn_id: int | None

    async def settle(self, mapping: ClaimMapper, reply: ChatMessage, emit: Callable[[EngineEvent], None]) -> None:
        """Await the map, keep it and its cost, then announce it; a cancel keeps only the cost."""
        try:
            claims = await mapping.late()
        finally:
            await asyncio.shield(self._keep(emit))
        if claims is not None:
            emit(ClaimsMapped(reply, claims))

    async def _keep(self, emit: Callable[[EngineEvent], None]) -> None:
        """Add the map's calls to the chat's cost and to the stored record (in a worker thread)."""
        workspace, record, caller = self.workspace, self.record, self.caller
        extra = caller.spent - self.spent
        record.calls = list(caller.calls)
        record.turn_cost_usd = caller.spent
        record.session_cost_usd += extra
        session = workspace.session
        change: TurnChange | None = None
        if extra and session.id == record.session:
            after = session.model_copy(update={"cost_usd": session.cost_usd + extra})
            turn = caller.ledger.turn if isinstance(caller.ledger, SqliteLedger) else None
            change = TurnChange(after, [], [], {}, extra, None, turn)
            workspace.session = after
        elif extra:  # the chat was changed under a map still out: never expected (the UI stops it first)
            log.warning("a late claim map's cost (%.6f) was for chat %s, no longer open", extra, record.session)

        def store() -> None:
            if change is not None:
                try:
                    workspace.session = workspace.store.commit_turn(change).session
                except TranscriptError:
                    pass  # the cost is stored; the transcript catches up at the next save
            if self.turn_id is not None:
                workspace.archive.amend_turn(self.turn_id, record)

        try:
            await asyncio.to_thread(store)
        except Exception as exc:  # noqa: BLE001 - OSError, sqlite3.Error: the reply is stored already
            log.warning("keeping a late claim map: %s", exc)
            emit(Notice(f"The claim map could not be saved with its run ({exc})."))
