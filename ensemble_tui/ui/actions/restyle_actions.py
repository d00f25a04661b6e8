"""The same turn in another style, in the app: the palette's "Same turn as ..." and Compare's `r`.

A collaborator of the main screen's ArchiveFlow (it reads the run archive). The core finds the last turn
and its first proposals (core/records/restyle.py); this starts the redo that reuses them through
the TurnController, so the new reply replaces the last one exactly as a redo's does, and only
the new style's own calls are made. The style chosen becomes the chat's, as F6-F9 would make it.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import TYPE_CHECKING

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.core.chat.session import SessionData
from ensemble_tui.ui.actions.context import AppContext

if TYPE_CHECKING:
    from ensemble_tui.core.records.restyle import RestyleSource
    from ensemble_tui.ui.turns.turn_controller import TurnController

log = logging.getLogger(__name__)


def source_line(source: RestyleSource) -> str:
    """ "run 3 · All · Aggregator · 3 proposals", for the picker's title and the palette's help."""
    count = len(source.proposals)
    return f"run {source.run} · {source.mode.label} · {source.style.label} · {count} proposal{'s' * (count != 1)}"


class Restyling:
    """Finds the last turn's proposals (cached until the chat changes) and restyles it."""

    def __init__(self, ctx: AppContext, turns: TurnController) -> None:
        self.ctx = ctx
        self.turns = turns
        self._cached: tuple[SessionData, int, RestyleSource | str] | None = None

    def source(self) -> RestyleSource | str:
        """The last turn's run and proposals, or the one line saying why it cannot be restyled.

        The palette asks on every key typed, so the answer is kept until the chat changes (every
        commit, reload or reopen makes a new session object)."""
        session = self.ctx.workspace.session
        cached = self._cached
        if cached is not None and cached[0] is session and cached[1] == len(session.history):
            return cached[2]
        try:
            records = [stored.record for stored in self.ctx.workspace.archive.turns(session.id)]
        except sqlite3.Error as exc:  # not cached: the next ask tries again
            log.warning("reading the run archive for a restyle: %s", exc)
            return f"Cannot read the run archive: {exc}"
        # Imported when a restyle is first asked for, not before the first frame (start-up).
        from ensemble_tui.core.records.restyle import RestyleRefused, restyle_source

        try:
            found: RestyleSource | str = restyle_source(session, records)
        except RestyleRefused as exc:
            found = str(exc)
        self._cached = (session, len(session.history), found)
        return found

    def other_styles(self) -> list[Style]:
        """The styles the last turn can be restyled in (all but its own); none when it cannot."""
        found = self.source()
        return [] if isinstance(found, str) else [style for style in Style if style is not found.style]

    def pick(self) -> None:
        """Compare's `r`: the other styles in a list; the one chosen runs."""
        from ensemble_tui.ui.screens.restyle_picker import RestylePicker

        found = self.source()
        if isinstance(found, str):
            self.ctx.say(found)
            return
        title = (
            f"Same turn in another style · {source_line(found)}\nNo proposer is asked again. Enter picks, Esc closes."
        )
        styles = [style for style in Style if style is not found.style]
        self.ctx.app.push_screen(RestylePicker(styles, title), self._picked)

    def _picked(self, style: Style | None) -> None:
        if style is not None:
            self.restyle(style)

    def restyle(self, style: Style) -> None:
        """Redo the last turn in `style` from its proposals; the reply replaces the last one."""
        ctx = self.ctx
        if not self.turns.may_send:
            ctx.app.notify(self.turns.busy_message(), severity="warning", markup=False)
            return
        found = self.source()
        if isinstance(found, str):
            ctx.say(found)
            return
        if (refused := ctx.workspace.refusal(found.mode)) is not None:  # before the old reply is withdrawn
            ctx.add_notice(refused, "error")
            return
        # The chat's style stays as chosen: the restyled reply's provenance names the style it used.
        self.turns.start(found.mode, "", reuse=found.proposals, reused_from=found.origin, style=style)
        ctx.say(f"Restyling {source_line(found)} as {style.label}: no proposer is asked again.")
