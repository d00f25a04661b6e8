"""The run archive in the app: run reports, the history of chats, and exports.

A collaborator of the main screen (ui/main_screen.py). Everything here reads `Workspace.archive` (SQLite) on demand; a
database that cannot be read costs a toast, never the app. The screens and the exporter are
imported when first used: the exporter brings markdown_it, and together they were ~35 ms of the
app's start-up.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.store.archive import StoredTurn
from ensemble_tui.core.text.paths import display_path
from ensemble_tui.ui.actions.context import AppContext
from ensemble_tui.ui.actions.restyle_actions import Restyling
from ensemble_tui.ui.bindings import shown_key
from ensemble_tui.ui.turns.turn_controller import TurnController

if TYPE_CHECKING:  # imported when first used (see above)
    from ensemble_tui.core.records.export import ExportFormat
    from ensemble_tui.ui.screens.report import ReportScreen
    from ensemble_tui.ui.screens.search_results import FoundMessage

log = logging.getLogger(__name__)

NO_RUNS = "No runs in this chat yet: the report appears after the first run."
NO_PROPOSALS = "The last run has no proposals to compare: send a question first."


class ArchiveFlow:
    """Ctrl+R (report), Ctrl+F (compare), Ctrl+G (history) and the export commands."""

    def __init__(
        self,
        ctx: AppContext,
        turns: TurnController,
        *,
        chat_id: Callable[[], str],
        show_session: Callable[[], None],
    ) -> None:
        """`chat_id`: the chat on screen; `show_session` paints a chat just reopened."""
        self.ctx = ctx
        self.turns = turns
        self.chat_id = chat_id
        self.show_session = show_session
        self.restyling = Restyling(ctx, turns)  # the same turn in another style (palette, Compare's `r`)

    def _archive_failed(self, what: str, exc: Exception) -> None:
        log.warning("%s: %s", what, exc)
        self.ctx.app.notify(f"{what}: {exc}", severity="error", markup=False, timeout=10)

    def session_turns(self) -> list[StoredTurn] | None:
        """This chat's runs, oldest first; None (and a toast) if the archive cannot be read."""
        try:
            return self.ctx.workspace.archive.turns(self.chat_id())
        except sqlite3.Error as exc:
            self._archive_failed("Cannot read the run archive", exc)
            return None

    # ----- run report ------------------------------------------------------------------------

    def _runs_or_notice(self) -> list[StoredTurn] | None:
        """This chat's runs; None, with a toast saying why, when there are none to show."""
        turns = self.session_turns()
        if turns is not None and not turns:
            self.ctx.say(NO_RUNS)
        return turns or None

    def show_report(self) -> None:
        turns = self._runs_or_notice()
        if turns is None:
            return
        from ensemble_tui.core.records.report import replaced_runs
        from ensemble_tui.ui.screens.report import ReportScreen

        replaced = replaced_runs([stored.record for stored in turns], self.ctx.workspace.session.history)
        self.ctx.app.push_screen(ReportScreen(turns, self.ctx.workspace.extra_providers, replaced=replaced))

    def show_compare(self, tab: str = "proposals") -> None:
        """The last run's proposals side by side (Ctrl+F), checked against the chat's PDF, and
        its claim map on the Claims tab (F10 opens Compare there)."""
        from ensemble_tui.core.claims.model import claims_of
        from ensemble_tui.ui.screens.claims import NO_MAP

        turns = self.session_turns() if tab == "claims" else self._runs_or_notice()
        if turns is None:
            return
        from ensemble_tui.core.records.compare import compare_rounds
        from ensemble_tui.ui.screens.compare import CompareScreen

        record = turns[-1].record if turns else None
        rounds = compare_rounds(record) if record is not None else []
        claim_map = claims_of(record.artifacts) if record is not None else None
        if tab == "claims" and (claim_map is None or not claim_map.claims) and not self.turns.map_pending:
            self.ctx.say(NO_MAP)
            return
        if not rounds and tab != "claims":
            self.ctx.say(NO_PROPOSALS)
            return
        workspace = self.ctx.workspace
        pdf = workspace.session.pdf_path
        question = record.query if record is not None else ""
        cache = workspace.paths.cache
        self.ctx.app.push_screen(
            CompareScreen(
                rounds,
                Path(pdf) if pdf else None,
                cache,
                claim_map,
                question=question,
                tab=tab,
                turn_id=turns[-1].id if turns else None,
                late_claims=self.turns.claims_mapped,
            ),
            self._compared,
        )

    def _compared(self, result: str | None) -> None:
        """Compare closed; with `r`, the turn is restyled (the styles to pick from come next)."""
        from ensemble_tui.ui.screens.compare import RESTYLE

        if result == RESTYLE:
            self.restyling.pick()

    def export_requested(self, message: ReportScreen.ExportRequested) -> None:
        """The report screen's `e` (and its palette entries): this run, or the whole chat."""
        if message.choice.scope == "run":
            self.export_run(message.record, message.number, message.choice.fmt)
        else:
            self.export_chat(message.choice.fmt)

    # ----- exports ---------------------------------------------------------------------------

    def export_run(self, record: TurnRecord, number: int, fmt: ExportFormat) -> Path | None:
        from ensemble_tui.core.records.export import export_turn, run_stem

        return self._write(run_stem(record.session, number), fmt, lambda: export_turn(record, fmt))

    def export_chat(self, fmt: ExportFormat) -> Path | None:
        turns = self.session_turns()
        if turns is None:
            return None
        from ensemble_tui.core.records.export import chat_stem, export_session

        session = self.ctx.workspace.store.archived(self.chat_id())  # the chat as saved, every turn in it
        if session is None:
            self.ctx.app.notify("This chat has not been saved yet.", severity="warning", markup=False)
            return None
        if not session.history:  # a new chat, before its first question: a file would hold nothing
            self.ctx.say("This chat has no messages yet: ask a question first.")
            return None
        records = [stored.record for stored in turns]
        return self._write(chat_stem(session.id), fmt, lambda: export_session(session, records, fmt))

    def export_last_run(self, fmt: ExportFormat) -> None:
        turns = self._runs_or_notice()
        if turns is None:
            return
        self.export_run(turns[-1].record, len(turns), fmt)

    def _write(self, stem: str, fmt: ExportFormat, render: Callable[[], str]) -> Path | None:
        from ensemble_tui.core.records.export import write_export

        try:
            path = write_export(self.ctx.workspace.paths.exports, stem, fmt, render())
        except OSError as exc:
            self._archive_failed("Cannot write the export", exc)
            return None
        # The file's name first: the status line is cut at the terminal's width, and at 80
        # columns "Exported to ~/.local/share/…" lost the name.
        self.ctx.say(f"Exported {path.name} to {display_path(path.parent)}")
        return path

    # ----- history -----------------------------------------------------------------------------

    def show_history(self) -> None:
        try:
            sessions = self.ctx.workspace.archive.sessions()
        except sqlite3.Error as exc:
            self._archive_failed("Cannot read the history", exc)
            return
        from ensemble_tui.ui.screens.history import HistoryScreen

        screen = HistoryScreen(
            sessions,
            self.chat_id(),
            actions=self,
            simulated=self.ctx.workspace.demo,
            library=self.ctx.workspace.archive,
            new_chat_key=shown_key("chat.new", self.ctx.keymap),
        )
        self.ctx.app.push_screen(screen, self._history_chosen)

    def rename_chat(self, session_id: str, title: str) -> str:
        """The history's rename: "" when done, else why not."""
        try:
            renamed = self.ctx.workspace.archive.rename_session(session_id, title)
            return "" if renamed else "That chat is no longer there."
        except sqlite3.Error as exc:
            return f"Cannot rename the chat: {exc}"

    def delete_chat(self, session_id: str) -> str:
        """The history's delete (confirmed there): the chat's records and transcript go, then its
        PDF's uploads are deleted at the providers unless another chat uses it."""
        try:
            pdf = self.ctx.workspace.store.delete(session_id)
        except (sqlite3.Error, OSError) as exc:
            return f"Cannot delete the chat: {exc}"
        if pdf:
            self.ctx.app.run_worker(self._free_uploads(pdf), group="free-uploads", exit_on_error=False)
        return ""

    async def _free_uploads(self, pdf: str) -> None:
        from ensemble_tui.core.upload_cleanup import free_uploads_of

        try:
            report = await free_uploads_of(self.ctx.workspace, pdf)
        except (sqlite3.Error, OSError) as exc:
            log.warning("freeing the uploads of a deleted chat: %s", exc)
            return
        for line in report.refusal_lines():
            self.ctx.app.notify(line, severity="warning", markup=False, timeout=10)

    async def _history_chosen(self, chosen: str | FoundMessage | None) -> None:
        if isinstance(chosen, str):
            await self.reopen_session(chosen)
        elif chosen is not None:
            await self.open_found(chosen)

    async def open_found(self, found: FoundMessage) -> None:
        """Open a search result's chat (if it is not open) at the message found, marked."""
        from ensemble_tui.ui.chat_log.found_message import claim_lines_shown, open_at

        ctx = self.ctx
        if found.session != self.chat_id() and not await self.reopen_session(found.session):
            return
        ctx.show_pane("chat")
        chat = ctx.view.chat
        history = ctx.workspace.session.history
        if not 0 <= found.position < len(history):
            return  # the chat's name was found: the chat opens as it always does
        message = history[found.position]
        await claim_lines_shown(chat.log_view)
        if open_at(chat.log_view, message, found.words) is None:
            return
        words = " ".join(found.words)
        what = "question" if message.role == "user" else "reply"
        chat.status.show(f"Found “{words}” in this {what} (marked).")

    async def reopen_session(self, session_id: str) -> bool:
        """Make a past chat the current one: a run under way is cancelled first (its question
        goes back into the box), then every pane is repainted from the reopened session."""
        ctx = self.ctx
        if session_id == self.chat_id():
            ctx.say("That chat is already open.")
            return False
        text = await self.turns.stop()
        try:
            session = ctx.workspace.reopen(session_id)
        except (EnsembleError, OSError, sqlite3.Error, ValueError) as exc:  # ValueError: a damaged record
            ctx.app.notify(f"Cannot reopen that chat: {exc}", severity="error", markup=False, timeout=10)
            ctx.view.chat.input.restore(text)
            return False
        self.show_session()
        ctx.view.chat.input.restore(text)
        ctx.view.chat.status.show(f"Reopened the chat of {session.id}.")
        ctx.show_pane("chat")
        ctx.view.chat.input.focus()
        return True
