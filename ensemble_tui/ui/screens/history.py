"""The history: past chats from the run archive, newest first; Enter reopens one.

The dialog returns the chosen session id; the app does the reopening (it may have to cancel a
run first). Every cell is a Text, never a str: DataTable parses str cells as markup, and the
first question is user text.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from ensemble_tui.core.chat.session import SESSION_ID_FORMAT
from ensemble_tui.core.store.archive import SessionSummary
from ensemble_tui.ui.chat_log.rendering import money, plain

QUESTION_CHARS = 56
# What the dialog takes beside the question column: its border and padding (the narrow one's),
# the date, replies and cost columns with their padding, and the scrollbar.
OTHER_COLUMNS_CELLS = 4 + 20 + 9 + 10 + 2 + 2
DIALOG_MAX_WIDTH = 110  # app.tcss, .dialog.-wide


def question_chars(screen_width: int) -> int:
    """The first question's room: all of QUESTION_CHARS on a wide screen, less on a narrow one,
    so the cost column is never pushed out of the dialog."""
    return max(12, min(QUESTION_CHARS, min(screen_width, DIALOG_MAX_WIDTH) - OTHER_COLUMNS_CELLS))


EMPTY = "No past chats yet: a chat appears here once it has a question."


def session_date(session_id: str) -> str:
    """ "2026-01-02_09-30-00-2" -> "2026-01-02 09:30" (ids are creation times); else the id."""
    try:
        return datetime.strptime(session_id[:19], SESSION_ID_FORMAT).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return session_id


def one_line(text: str, limit: int = QUESTION_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class HistoryScreen(ModalScreen[str | None]):
    """Returns the id of the chat to reopen, or None when dismissed."""

    BINDINGS = [Binding("escape", "close", "Close", id="history.close")]

    def __init__(self, sessions: Sequence[SessionSummary], current_id: str) -> None:
        super().__init__(classes="dialog-screen")
        self.sessions = list(sessions)
        self.current_id = current_id

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -wide"):
            yield Label("Past chats (Enter reopens one, Esc closes)", classes="dialog-title")
            if not self.sessions:
                yield Static(plain(EMPTY), classes="empty-hint")
                return
            table: DataTable[Text] = DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
            table.add_column(Text("Date"), key="date")
            table.add_column(Text("First question"), key="question")
            table.add_column(Text("Replies", justify="right"), key="turns")
            table.add_column(Text("Cost", justify="right"), key="cost")
            limit = question_chars(self.app.size.width)
            for summary in self.sessions:
                date = Text(session_date(summary.id))
                if summary.id == self.current_id:
                    date.append(" ●", style="bold")
                table.add_row(
                    date,
                    plain(one_line(summary.first_question, limit)),
                    Text(str(summary.turns), justify="right"),
                    Text(money(summary.cost_usd), justify="right"),
                    key=summary.id,
                )
            yield table
            if any(summary.id == self.current_id for summary in self.sessions):
                yield Static(plain("● the chat open now"), classes="pane-hint")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(event.row_key.value)

    def action_close(self) -> None:
        self.dismiss(None)
