"""The history searches every chat's contents (issue 32 §1): Ctrl+G, a word found only in an
earlier chat's reply, Enter, and that chat opens at that reply, marked, the word highlighted;
an older home is indexed on the history's first open; snapshots of the results at 80x24 and
120x40. Update the snapshots with:
pytest tests/ui/test_search_results.py --snapshot-update
"""

from __future__ import annotations

import pytest
from rich.console import Console
from textual.widgets import DataTable

from ensemble_tui.core.chat.session import LISTS, ChatMessage, SessionData
from ensemble_tui.core.store.archive import ListChange, RunArchive, SessionRow
from ensemble_tui.ui.chat_log.chat_view import ChatEntry
from ensemble_tui.ui.chat_log.found_message import FOUND
from ensemble_tui.ui.screens.history import HistoryScreen
from ensemble_tui.ui.screens.search_results import SearchResults, highlighted
from tests.ui.conftest import SIZE, wait_until
from tests.ui.test_snapshots import SIZES, snapshot_app, steady_cursor  # noqa: F401  (the fixture)

FILLER = "The authors then compare three ways to combine models. " * 6


def past_chat(archive: RunArchive, session_id: str, *pairs: tuple[str, str], at: str = "2026-01-01T10:00:00") -> None:
    """A chat stored as the app stores one, its index entries dated `at` (snapshots stay fixed)."""
    messages = [m for q, r in pairs for m in (ChatMessage(role="user", text=q), ChatMessage(role="assistant", text=r))]
    head = SessionData(id=session_id).model_dump_json(exclude=set(LISTS))
    row = SessionRow(session_id, pairs[0][0], len(pairs), 0.01 * len(pairs), head)
    with archive.writing() as db:
        archive.save_session(row, {"history": ListChange(0, [m.model_dump_json() for m in messages])}, db=db)
        db.execute("UPDATE search_entries SET at = ? WHERE session = ?", (at, session_id))


def library(archive: RunArchive) -> None:
    past_chat(
        archive,
        "2025-12-01_08-00-00",
        ("Which gate does the router use?", "A learned [bold]softmax[/bold] gate picks two experts."),
        at="2025-12-01T08:00:00",
    )
    past_chat(
        archive,
        "2025-12-03_14-30-00",
        ("How is the load balanced?", FILLER + r"With an auxiliary loss on $\mathrm{softmax}$ scores."),
        ("And the capacity?", "Tokens over capacity are dropped."),
        at="2025-12-03T14:30:00",
    )


@pytest.mark.parametrize("size", SIZES)
def test_search_results_layout(snap_compare, snapshot_app, size):  # noqa: F811
    library(snapshot_app.workspace.archive)

    async def search(pilot) -> None:
        await pilot.pause()  # start-up done (see test_snapshots.show)
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, HistoryScreen))
        await pilot.press(*"softmax")
        await wait_until(pilot, lambda: bool(pilot.app.screen.query_one(SearchResults).hits))
        await steady_cursor(pilot)

    assert snap_compare(snapshot_app, terminal_size=size, run_before=search)


def test_a_snippet_is_shown_as_written_with_its_match_highlighted():
    text = highlighted("a [bold]\x02softmax\x03[/bold]\n gate")
    assert text.plain == "a [bold]softmax[/bold] gate"
    assert [(text.plain[span.start : span.end], str(span.style)) for span in text.spans] == [
        ("softmax", "bold reverse")
    ]


async def test_a_word_only_in_an_earlier_reply_opens_that_chat_at_it_marked(workspace, chatty, make_app):
    library(workspace.archive)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press(*"auxiliary")
        await pilot.pause()
        screen = app.screen
        assert screen.query_one(DataTable).row_count == 0  # no chat's name or question holds it
        hits = screen.query_one(SearchResults).hits
        assert [(hit.session, hit.kind, hit.position) for hit in hits] == [("2025-12-03_14-30-00", "reply", 1)]
        assert "Found in 1 message" in str(screen.query_one("#history-status").content)
        await pilot.press("enter")
        await wait_until(pilot, lambda: workspace.session.id == "2025-12-03_14-30-00")
        await pilot.pause()
        found = [entry for entry in app.query(ChatEntry) if entry.has_class(FOUND)]
        assert [entry.message.text for entry in found] == [workspace.session.history[1].text]
        console = Console(width=100, record=True)
        console.print(found[0].content)
        assert "\x1b[1;7m" in console.export_text(styles=True).split("auxiliary")[0][-20:]  # highlighted
        assert "Found \u201cauxiliary\u201d in this reply" in app.main.chat.status.text


async def test_the_result_chosen_with_tab_opens_at_its_message(workspace, chatty, make_app):
    library(workspace.archive)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press(*"capacity")
        await pilot.pause()
        hits = app.screen.query_one(SearchResults).hits
        assert sorted(hit.kind for hit in hits) == ["question", "reply"]
        reply = [hit.kind for hit in hits].index("reply")
        await pilot.press("tab", *["down"] * reply, "enter")  # Tab to the results, then the reply
        await wait_until(pilot, lambda: workspace.session.id == "2025-12-03_14-30-00")
        await pilot.pause()
        found = [entry.message.text for entry in app.query(ChatEntry) if entry.has_class(FOUND)]
        assert found == ["Tokens over capacity are dropped."]


async def test_while_results_show_the_chat_list_shrinks_to_leave_them_room(workspace, chatty, make_app):
    """Thirty chats whose questions match: the list gives up its height to the results under it
    (the app's stylesheet held it at 24 lines, over the screen's 6 while searching)."""
    for n in range(30):
        past_chat(
            workspace.archive, f"2025-11-{1 + n % 28:02d}_08-00-{n:02d}", (f"Which softmax gate {n}?", f"Gate {n}.")
        )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press(*"softmax")
        await wait_until(pilot, lambda: bool(app.screen.query_one(SearchResults).hits))
        await pilot.pause()
        table, results = app.screen.query_one(DataTable), app.screen.query_one(SearchResults)
        assert table.row_count == 30
        assert table.outer_size.height <= 6
        assert results.region.height > 6 and results.region.bottom <= SIZE[1]
        # The hint's keys reach a result, not the list above it (it said "Tab, then Enter", which
        # reopened the highlighted chat instead).
        assert "Tab twice to choose one" in str(app.screen.query_one("#history-status").content)
        chosen = results.hits[0]
        await pilot.press("tab", "tab", "enter")
        await wait_until(pilot, lambda: workspace.session.id == chosen.session)
        await pilot.pause()
        found = [entry.message.text for entry in app.query(ChatEntry) if entry.has_class(FOUND)]
        assert found == [workspace.session.history[chosen.position].text]


async def test_an_older_home_is_indexed_on_the_history_first_open(workspace, chatty, make_app):
    library(workspace.archive)
    with workspace.archive.transaction() as db:  # as a home made before the index
        db.execute("DELETE FROM search_meta")
        db.execute("DELETE FROM search_entries")
        db.execute("DELETE FROM search_text")
    assert workspace.archive.search("auxiliary") == []
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await wait_until(pilot, lambda: workspace.archive.search_index_ready())
        await pilot.press(*"auxiliary")
        await wait_until(pilot, lambda: bool(app.screen.query_one(SearchResults).hits))


async def test_a_long_history_reaches_every_chat_by_keys_scrolling_and_the_filter(workspace, make_app):
    """1,000 chats: the list opens at the newest, lists more as the cursor or the scroll comes
    near its last row, and Ctrl+End reaches the oldest (it used to list only the newest 200)."""
    from ensemble_tui.core.store.archive import SessionSummary

    chats = [SessionSummary(f"2025-01-01_00-00-00-{n}", f"Question number {n}", 1, 0.01) for n in range(1000, 0, -1)]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(HistoryScreen(chats, ""))
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.pause()
        screen = app.screen
        table = screen.query_one(DataTable)
        assert str(table.get_row_at(0)[1]) == "Question number 1000"
        assert "of 1,000 chats" not in str(screen.query_one("#history-status").content)

        await pilot.press("tab", *["pagedown"] * 12)  # to the list, then a page at a time
        await pilot.pause()
        assert screen.highlighted() is not None
        assert screen.highlighted().name == str(table.get_row_at(table.cursor_row)[1])
        assert table.cursor_row > 250  # more chats were listed as the cursor went down

        table.scroll_end(animate=False, immediate=True)  # the mouse wheel or the scroll bar
        await wait_until(pilot, lambda: table.row_count > table.cursor_row + 100)

        await pilot.press("ctrl+end")  # the table's key for its last row
        await pilot.pause()
        assert table.row_count == 1000
        assert screen.highlighted().name == "Question number 1"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, HistoryScreen))

        app.push_screen(HistoryScreen(chats, ""))
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press(*"number 3", "tab", "ctrl+end")  # 3, 30-39 and 300-399, then the oldest
        await pilot.pause()
        assert app.screen.highlighted().name == "Question number 3"


async def test_at_80x24_the_hint_stays_on_screen_and_down_chooses_the_result_enter_opens(workspace, chatty, make_app):
    """Eight replies hold the word, no chat's question does: the list hides and the results take
    its place. At 80x24 they scrolled past the dialog's bottom, taking the line that says how to
    choose one with them, and a long snippet wrapped to a third line; Down from the filter moved
    the hidden list, so Enter always opened the first result."""
    for n in range(8):
        reply = f"{FILLER} Gating {n}. {FILLER}"
        past_chat(workspace.archive, f"2025-10-{n + 1:02d}_08-00-00", (f"Question {n}?", reply))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press(*"gating")
        await wait_until(pilot, lambda: len(app.screen.query_one(SearchResults).hits) == 8)
        await pilot.pause()
        screen = app.screen
        results, status = screen.query_one(SearchResults), screen.query_one("#history-status")
        assert screen.query_one(DataTable).row_count == 0
        assert results.virtual_size.height == 2 * 8  # two lines a result, the snippet cut to fit
        dialog = screen.query_one(".dialog")
        assert status.region.bottom <= dialog.region.bottom - 1  # inside the dialog's border
        assert "Up and Down choose, Enter opens" in str(status.content)
        await pilot.press("down", "down", "down", "enter")
        chosen = results.hits[3]
        await wait_until(pilot, lambda: workspace.session.id == chosen.session)
        await pilot.pause()
        found = [entry.message.text for entry in app.query(ChatEntry) if entry.has_class(FOUND)]
        assert found == [workspace.session.history[chosen.position].text]
