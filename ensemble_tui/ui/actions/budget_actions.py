"""A chat's unconfirmed reservations in the app (issue 34 §2): the calls of a turn whose process
was killed still count against the cap until the user releases them. The status line's cost
shows them; the palette ("Release unconfirmed reservations") and a Settings button release
them, with the one-line warning of what that means. A collaborator of the main screen (ui/main_screen.py).

The ledger is SQLite, read and written in a thread: a busy database (another process's turn)
may hold the write lock for seconds, and the event loop must not wait for it.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3

from ensemble_tui.core.money import cents
from ensemble_tui.core.store.budget_ledger import release, tally
from ensemble_tui.core.turn.costs import unconfirmed_phrase
from ensemble_tui.ui.actions.context import AppContext

log = logging.getLogger(__name__)

RELEASED = "Released {amount} unconfirmed: the warning above says what that means."
NOTHING_TO_RELEASE = "This chat has no unconfirmed reservations: nothing to release."
UNREADABLE = "The budget ledger cannot be read or written: {error}."


class BudgetActions:
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    def _unconfirmed(self, session_id: str) -> tuple[float, str | None]:
        """(amount, "up to $0.96 unconfirmed from a turn cut off at 05:31" or None); in a thread."""
        with self.ctx.workspace.archive.transaction() as db:
            counted = tally(db, session_id)
        if counted.unconfirmed <= 0:
            return 0.0, None
        return counted.unconfirmed, unconfirmed_phrase(counted.unconfirmed, counted.unconfirmed_since)

    def _show(self, session_id: str, amount: float, phrase: str | None) -> None:
        """Show what the chat holds, unless another chat was opened meanwhile."""
        if session_id != self.ctx.workspace.session.id:
            return
        self.ctx.view.chat.status.set_unconfirmed(amount)
        self.ctx.view.settings.show_unconfirmed(phrase)

    async def refresh(self) -> None:
        """Read the open chat's unconfirmed amount (when a chat is shown) and show it."""
        session_id = self.ctx.workspace.session.id
        try:
            amount, phrase = await asyncio.to_thread(self._unconfirmed, session_id)
        except (sqlite3.Error, OSError) as exc:
            log.warning("cannot read the budget ledger: %s", exc)
            return
        self._show(session_id, amount, phrase)

    async def release(self) -> None:
        """Release the open chat's unconfirmed reservations; the status line says what that means."""
        session_id = self.ctx.workspace.session.id
        try:
            held, _ = await asyncio.to_thread(self._unconfirmed, session_id)
            warning = await asyncio.to_thread(release, self.ctx.workspace.archive, session_id)
            amount, phrase = await asyncio.to_thread(self._unconfirmed, session_id)
        except (sqlite3.Error, OSError) as exc:
            self.ctx.add_notice(UNREADABLE.format(error=exc), "error")
            return
        self._show(session_id, amount, phrase)
        if warning is None:
            self.ctx.say(NOTHING_TO_RELEASE)
            return
        self.ctx.add_notice(warning, "warning")  # the whole warning; the status line has 78 cells
        self.ctx.say(RELEASED.format(amount=cents(held)))
