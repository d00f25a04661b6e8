"""The history: past chats from the run archive, newest first; Enter reopens one, typing filters
the list, r renames a chat and d deletes one (after a confirmation). What is typed is also
searched for in every chat's questions, replies, proposals and claims (search_results.py):
Enter on a result opens its chat at that message.

The dialog returns the chosen session id; the app does the reopening (it may have to cancel a
run first). Every cell is a Text, never a str: DataTable parses str cells as markup, and the
first question is user text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from typing import Any, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, OptionList, Static
from textual.worker import get_current_worker

from ensemble_tui.core.chat.session import SESSION_ID_FORMAT, fork_phrase
from ensemble_tui.core.money import amount
from ensemble_tui.core.store.archive import SessionSummary
from ensemble_tui.core.store.fork import branch_lead, under_parents
from ensemble_tui.core.store.search_index import Hit
from ensemble_tui.core.store.search_text import parse_query
from ensemble_tui.ui.chat_log.rendering import plain
from ensemble_tui.ui.screens.search_results import FoundMessage, SearchResults

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


@lru_cache(maxsize=4096)  # the filter reads every chat's date at each key: strptime is slow
def session_date(session_id: str) -> str:
    """ "2026-01-02_09-30-00-2" -> "2026-01-02 09:30" (ids are creation times); else the id."""
    try:
        return datetime.strptime(session_id[:19], SESSION_ID_FORMAT).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return session_id


def one_line(text: str, limit: int = QUESTION_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def question_cell(summary: SessionSummary, depth: int, limit: int) -> Text:
    """The chat's name; a branch's, indented under its parent, begins with its fork point."""
    if not depth:
        return plain(one_line(summary.name, limit))
    lead = branch_lead(depth)
    cell = Text(lead)
    where = fork_phrase(summary.fork_turn or 0)
    cell.append(where, style="italic")
    rest = limit - len(lead) - len(where) - 3
    if rest > 0:
        cell.append(" · ")
        cell.append_text(plain(one_line(summary.name, rest)))
    return cell


class HistoryActions(Protocol):
    """What the history may change besides reopening: done by the app, which owns the workspace.
    Each returns "" when done, else one line saying why not."""

    def rename_chat(self, session_id: str, title: str) -> str: ...

    def delete_chat(self, session_id: str) -> str: ...


class Library(Protocol):
    """Search across every chat's contents (RunArchive's search, core/store/search_index.py)."""

    def search(self, query: str, limit: int = 20) -> list[Hit]: ...

    def search_index_ready(self) -> bool: ...

    def build_search_index(self, progress: Callable[[int, int], None] | None = None) -> int: ...


SEARCH_LIMIT = 50
# The list reaches every chat, but a DataTable row costs ~0.1 ms to add and as much again to
# measure (every row, whatever its column widths), and a home of 1,000 chats must open within
# 200 ms (bench row 9.f): the list is filled as it is read. A screenful of rows is added before
# the first frame; this many more each time the cursor or the scroll comes within a screen of the
# last row added, and all of them for Ctrl+End (the table's key for its last row).
ROWS_A_STEP = 100


def matches(summary: SessionSummary, words: list[str]) -> bool:
    """Whether every word typed in the filter is in the chat's name, first question or date."""
    if not words:
        return True
    haystack = f"{summary.name} {summary.first_question} {session_date(summary.id)}".casefold()
    return all(word in haystack for word in words)


class ChatTable(DataTable[Text]):
    """The history's table, filled as it is read (HistoryScreen.fill): its last row (Ctrl+End)
    is the oldest chat, whether it was listed yet or not."""

    def __init__(self, list_all: Callable[[], None], **options: Any) -> None:
        super().__init__(**options)
        self.list_all = list_all

    def action_scroll_bottom(self) -> None:
        self.list_all()
        super().action_scroll_bottom()


class HistoryScreen(ModalScreen[str | FoundMessage | None]):
    """Returns the id of the chat to reopen (a FoundMessage for a search result: the chat and the
    message to open it at), or None when dismissed. Typing filters the list and, with `library`,
    searches every chat's contents; with `actions`, r renames the highlighted chat and d deletes
    it after a confirmation."""

    BINDINGS = [
        Binding("escape", "close", "Close", id="history.close"),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("r", "rename", "Rename", id="history.rename"),
        Binding("d", "delete", "Delete", id="history.delete"),
    ]
    DEFAULT_CSS = """
    #history-filter, #history-rename { margin-bottom: 1; }
    #history-rename { display: none; }
    #history-rename.-shown { display: block; }
    #history-results { display: none; margin-top: 1; }
    #history-results.-shown { display: block; }
    #history-table { height: auto; max-height: 24; }
    HistoryScreen.-searching #history-table { max-height: 6; }
    HistoryScreen.-searching #history-table.-empty { display: none; }
    """

    def __init__(
        self,
        sessions: Sequence[SessionSummary],
        current_id: str,
        actions: HistoryActions | None = None,
        *,
        simulated: bool = False,
        library: Library | None = None,
        new_chat_key: str = "Ctrl+N",
    ) -> None:
        """`simulated`: a demo's chats, whose costs are what real providers would charge;
        `library`: where to search the chats' contents (None: the list's filter only);
        `new_chat_key`: the key of a new chat, as Keymap.json maps it."""
        super().__init__(classes="dialog-screen")
        self.new_chat_key = new_chat_key
        self.sessions = list(sessions)
        self.current_id = current_id
        self.actions = actions
        self.simulated = simulated
        self.library = library
        self.indexing = False  # the search index of an older home is being built
        self.unlisted: list[tuple[SessionSummary, int]] = []  # the matching chats not in the table yet

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog -wide"):
            keys = " · Tab, then r renames, d deletes" if self.actions is not None else ""
            yield Label(f"Past chats · Enter reopens{keys} · Esc closes", classes="dialog-title")
            if not self.sessions:
                yield Static(plain(EMPTY), classes="empty-hint")
                return
            yield Input(placeholder="Filter: words of a question, a name or a date", id="history-filter", compact=True)
            yield Input(id="history-rename", compact=True)
            table = ChatTable(self.list_all, id="history-table", cursor_type="row", zebra_stripes=True)
            table.add_column(Text("Date"), key="date")
            table.add_column(Text("First question"), key="question")
            table.add_column(Text("Replies", justify="right"), key="turns")
            table.add_column(Text("Sim. cost" if self.simulated else "Cost", justify="right"), key="cost")
            yield table
            yield SearchResults(id="history-results")
            yield Static("", id="history-status", classes="pane-hint")

    def on_mount(self) -> None:
        if self.sessions:
            self.fill("")
            self.watch(self.query_one("#history-table", DataTable), "scroll_y", self.scrolled, init=False)
            self.query_one("#history-filter", Input).focus()
            if self.library is not None and not self.library.search_index_ready():
                self.indexing = True
                self.run_worker(self.build_index, thread=True, exit_on_error=False, group="search-index")

    def fill(self, text: str, keep: str | None = None) -> None:
        """Show the chats that match the filter `text`: a screenful of rows (down to the chat
        `keep`, so the cursor can stay on it), the others as the list is read (`list_more`)."""
        table = self.query_one("#history-table", DataTable)
        table.clear()
        words = text.casefold().split()
        matching = [summary for summary in self.sessions if matches(summary, words)]
        self.unlisted = under_parents(matching)
        kept = next((n + 1 for n, (summary, _) in enumerate(self.unlisted) if summary.id == keep), 0)
        self.list_more(max(self.app.size.height, kept))
        if not matching:
            self.say(f"No chat matches \u201c{text.strip()}\u201d.")
        elif any(summary.id == self.current_id for summary in matching):
            self.say("● the chat open now")
        else:
            self.say("")
        self.search_contents(text)

    def list_more(self, count: int) -> None:
        """Add the next `count` matching chats to the table."""
        table = self.query_one("#history-table", DataTable)
        limit = question_chars(self.app.size.width)
        adding, self.unlisted = self.unlisted[:count], self.unlisted[count:]
        for summary, depth in adding:
            date = Text(session_date(summary.id))
            if summary.id == self.current_id:
                date.append(" ●", style="bold")
            table.add_row(
                date,
                question_cell(summary, depth, limit),
                Text(str(summary.turns), justify="right"),
                Text(amount(summary.cost_usd, simulated=self.simulated), justify="right"),
                key=summary.id,
            )

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The cursor within a screen of the last row listed lists more (not on the first row:
        a fill lists a screenful, and is highlighted there before its layout)."""
        if self.unlisted and 0 < event.cursor_row >= event.data_table.row_count - self.app.size.height:
            self.list_more(ROWS_A_STEP)

    def list_all(self) -> None:
        """Every matching chat, for the table's last row (Ctrl+End) to be the oldest."""
        self.list_more(len(self.unlisted))

    def scrolled(self, scroll_y: float) -> None:
        """The list scrolled (the mouse, the scroll bar) to within a screen of its last row."""
        table = self.query_one("#history-table", DataTable)
        if self.unlisted and scroll_y + 2 * self.app.size.height >= table.row_count:
            self.list_more(ROWS_A_STEP)

    def say(self, line: str) -> None:
        self.query_one("#history-status", Static).update(plain(line))

    def highlighted(self) -> SessionSummary | None:
        table = self.query_one("#history-table", DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((summary for summary in self.sessions if summary.id == key), None)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "history-filter":
            event.stop()
            self.fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "history-rename":
            self.finish_rename(event.value)
            return
        chosen = self.highlighted()
        results = self.query_one("#history-results", SearchResults)
        if chosen is not None:
            self.dismiss(chosen.id)
        elif results.hits:
            self.open_result(results.highlighted or 0)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(event.row_key.value)

    def action_cursor(self, step: int) -> None:
        """Up and down move through the list while the filter has the focus too; through the
        search results when no chat's name or first question matches (the list is hidden)."""
        table = self.query_one("#history-table", DataTable)
        results = self.query_one("#history-results", SearchResults)
        if table.row_count or not results.hits:
            table.move_cursor(row=table.cursor_row + step)
        elif step > 0:
            results.action_cursor_down()
        else:
            results.action_cursor_up()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """r and d are letters: while the filter or the name has the focus they are typed."""
        if action in ("rename", "delete"):
            return self.actions is not None and bool(self.sessions) and not isinstance(self.focused, Input)
        if action == "cursor":
            return bool(self.sessions) and self.focused is not None and self.focused.id == "history-filter"
        return True

    def action_rename(self) -> None:
        chosen = self.highlighted()
        if chosen is None:
            return
        field = self.query_one("#history-rename", Input)
        field.value = chosen.title or one_line(chosen.first_question, 60)
        field.placeholder = "A name for this chat (empty: its first question)"
        field.add_class("-shown")
        field.focus()
        self.say("Enter keeps the new name; Esc leaves it as it was.")

    def finish_rename(self, title: str) -> None:
        field = self.query_one("#history-rename", Input)
        field.remove_class("-shown")
        chosen = self.highlighted()
        if chosen is None or self.actions is None:
            return
        problem = self.actions.rename_chat(chosen.id, title)
        if problem:
            self.say(problem)
        else:
            self.sessions = [replace(s, title=title.strip()) if s.id == chosen.id else s for s in self.sessions]
            self.refill(keep=chosen.id)
            self.say(f"Renamed the chat of {session_date(chosen.id)}.")
        table = self.query_one("#history-table", DataTable)
        if chosen.id in table.rows:  # the cursor stays on the chat renamed, so a following d acts on it
            table.move_cursor(row=table.get_row_index(chosen.id))
        table.focus()

    def refill(self, keep: str | None = None) -> None:
        self.fill(self.query_one("#history-filter", Input).value, keep)

    def action_delete(self) -> None:
        chosen = self.highlighted()
        if chosen is None or self.actions is None:
            return
        if chosen.id == self.current_id:
            self.say(f"The chat open now cannot be deleted: start a new chat ({self.new_chat_key}) first.")
            return
        from ensemble_tui.ui.screens.confirm import ConfirmScreen

        question = f"Delete the chat of {session_date(chosen.id)}, \u201c{one_line(chosen.name, 40)}\u201d?"
        consequence = (
            "Its transcript and run records are removed, and its uploaded PDF is freed if no other chat uses it."
        )

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.delete(chosen)

        self.app.push_screen(ConfirmScreen(question, consequence, "Delete"), confirmed)

    def delete(self, chosen: SessionSummary) -> None:
        assert self.actions is not None
        problem = self.actions.delete_chat(chosen.id)
        if problem:
            self.say(problem)
            return
        self.sessions = [s for s in self.sessions if s.id != chosen.id]
        self.refill()
        self.say(f"Deleted the chat of {session_date(chosen.id)}.")

    def action_close(self) -> None:
        rename = self.query("#history-rename.-shown")
        if rename:
            rename.first(Input).remove_class("-shown")
            self.query_one("#history-table", DataTable).focus()
            self.say("")
            return
        self.dismiss(None)

    # ----- search across every chat's contents -----------------------------------------------

    def build_index(self) -> None:
        """Index an older home's chats once, in a thread, its progress on the status line."""
        assert self.library is not None
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if not worker.is_cancelled:
                self.app.call_from_thread(self.say, f"Indexing the chats for search: {done}/{total}")

        try:
            self.library.build_search_index(progress)
        except Exception as exc:  # sqlite3.Error, or a home gone: the list's filter still works
            self.app.call_from_thread(self.say, f"The chats cannot be indexed for search: {exc}")
            return
        finally:
            self.indexing = False
        if not worker.is_cancelled:
            self.app.call_from_thread(self.refill)

    def search_contents(self, text: str) -> None:
        """Show what `text` finds in every chat's questions, replies, proposals and claims."""
        results = self.query_one("#history-results", SearchResults)
        table = self.query_one("#history-table", DataTable)
        hits: list[Hit] = []
        if self.library is not None and not self.indexing and text.strip():
            try:
                hits = self.library.search(text, SEARCH_LIMIT)
            except Exception as exc:  # sqlite3.Error: the list's filter still works
                self.say(f"The chats' contents cannot be searched: {exc}")
        results.show_hits(hits, max(12, min(self.app.size.width, DIALOG_MAX_WIDTH) - 40))
        results.set_class(bool(hits), "-shown")
        self.set_class(bool(hits), "-searching")
        table.set_class(not table.row_count, "-empty")
        if hits:
            where = f"{len(hits)}{'+' if len(hits) == SEARCH_LIMIT else ''}"
            found = f"Found in {where} message{'s' if len(hits) != 1 else ''}"
            keys = "Tab twice to choose one, Enter opens it" if table.row_count else "Up and Down choose, Enter opens"
            self.say(f"{found} · {keys}")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "history-results":
            event.stop()
            self.open_result(event.option_index)

    def open_result(self, index: int) -> None:
        results = self.query_one("#history-results", SearchResults)
        if not 0 <= index < len(results.hits):
            return
        hit = results.hits[index]
        words = parse_query(self.query_one("#history-filter", Input).value).words
        self.dismiss(FoundMessage(hit.session, hit.position, words))
