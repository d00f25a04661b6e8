"""A claim map drawn after its turn's reply was committed: kept with the run, paid for, shown.

The reply never waits for the map (core/turn/claim_mapping.py). When the map is still out at
the reply, the engine commits the reply, announces it (ReplyCommitted.map_pending: the turn's
handle is in its MAPPING phase), and then awaits the map here. Once it is drawn, or left out, or
dropped by a cancel (a new turn, the app closing), what its calls cost and the run's record,
rewritten with the map and those calls, are stored in one commit through the engine's one save
(core/turn/commit.py `save`: SessionStore.commit_turn, so another process's turns are merged, not
overwritten; the session assigned on the event loop's thread). The map's outcome is announced
after it is stored, keyed by the run's archive id: ClaimsMapped, or ClaimsLeftOut (why).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.store.budget_ledger import SqliteLedger
from ensemble_tui.core.store.session_store import Committed, TurnChange
from ensemble_tui.core.turn.calls import ModelCaller
from ensemble_tui.core.turn.claim_mapping import ClaimMapping
from ensemble_tui.core.turn.events import ClaimsLeftOut, ClaimsMapped, EngineEvent, Notice
from ensemble_tui.core.workspace import Workspace

log = logging.getLogger(__name__)

Emit = Callable[[EngineEvent], None]
Save = Callable[[TurnChange, Emit], Awaitable[Committed | None]]


@dataclass
class LateMap:
    """The map of a committed turn: `spent` is what the turn's calls had cost at its commit,
    `turn_id` its record's row in the archive (None: not stored, nothing to amend); `save` is
    the one commit (core/turn/commit.py)."""

    workspace: Workspace
    record: TurnRecord
    caller: ModelCaller
    spent: float
    turn_id: int | None
    save: Save

    async def settle(self, mapping: ClaimMapping, emit: Emit) -> None:
        """Await the map, keep it and its cost, then announce it; a cancel keeps only the cost."""
        try:
            claims = await mapping.late()
        finally:
            await asyncio.shield(self._keep(emit))
        if claims is not None:
            emit(ClaimsMapped(self.turn_id, claims))
        else:
            emit(ClaimsLeftOut(mapping.left_out or "it could not be drawn", self.turn_id, late=True))

    async def _keep(self, emit: Emit) -> None:
        """Add the map's calls to the chat's cost and to the stored record, in one commit."""
        workspace, record, caller = self.workspace, self.record, self.caller
        extra = caller.spent - self.spent
        record.calls = list(caller.calls)
        record.turn_cost_usd = caller.spent
        record.session_cost_usd += extra
        session = workspace.session
        if session.id != record.session:  # the chat was changed under a map still out: never expected
            log.warning("a late claim map (%.6f) was for chat %s, no longer open", extra, record.session)
            if self.turn_id is not None:  # its record still gets the map's calls (no session changes)
                await asyncio.to_thread(workspace.archive.amend_turn, self.turn_id, record)
            return
        if not extra and self.turn_id is None:
            return  # nothing to store
        after = session.model_copy(update={"cost_usd": session.cost_usd + extra})
        turn = caller.ledger.turn if isinstance(caller.ledger, SqliteLedger) else None
        stored = record if self.turn_id is not None else None
        change = TurnChange(after, [], [], {}, extra, stored, turn, amends=self.turn_id)
        try:
            await self.save(change, emit)
        except Exception as exc:  # noqa: BLE001 - OSError, sqlite3.Error: the reply is stored already
            log.warning("keeping a late claim map: %s", exc)
            emit(Notice(f"The claim map could not be saved with its run ({exc})."))
