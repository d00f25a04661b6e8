"""The run report (Ctrl+R), the history of chats (Ctrl+G) and exports, through Pilot."""

from __future__ import annotations

import io
import json

from rich.console import Console
from textual.widgets import DataTable

from ensemble_tui.ui.actions.archive_flow import NO_RUNS
from ensemble_tui.ui.chat_log.chat_view import ChatEntry
from ensemble_tui.ui.screens.export_picker import ExportPicker
from ensemble_tui.ui.screens.history import HistoryScreen
from ensemble_tui.ui.screens.report import ReportScreen
from tests.support import Hang
from tests.ui.conftest import SIZE, key_in_play, rendered_text, settle, show_pane, type_text, wait_until
from tests.ui.test_layout import footer_line
from tests.ui.test_styles import well_formed_reviews


def report_text(screen: ReportScreen) -> str:
    """The whole report as rendered (not only the part scrolled into view)."""
    console = Console(width=160, record=True, file=io.StringIO())
    for widget in screen.query(".report-title, .report-section"):
        console.print(widget.content)
    return console.export_text()


async def ask(pilot, text: str, key: str = "f5") -> None:
    await type_text(pilot, text)
    await pilot.press(key)
    await settle(pilot)


async def test_the_report_of_an_aggregate_run_lists_every_call_and_pass(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["aggregator"] = ["REQUEST SYNTHESIS FROM PROPOSERS\nAgree first", "FINAL REPLY:\nAgreed."]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")  # nothing to report yet: a toast, no screen
        await pilot.pause()
        assert not isinstance(app.screen, ReportScreen)
        await ask(pilot, "What is [bold]new?")
        await pilot.press("ctrl+r")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ReportScreen) and bool(app.screen.query(".report-section"))
        )
        text = report_text(app.screen)
        assert "run 1 of 1 · All" in text
        assert "What is [bold]new?" in text  # the question as typed: no markup applied
        for heading in ("Summary", "Calls", "Answers", "Resubmissions", "Aggregator passes", "Final reply"):
            assert heading in text
        assert text.count("proposer") == 6 and text.count("aggregator") >= 2
        assert "Agree first" in text and "Agreed." in text
        assert not key_in_play(app, "mode.all")  # the main screen's keys wait behind it
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ReportScreen))


async def test_the_report_of_a_vote_shows_the_vote_maths_and_left_right_pick_runs(workspace, chatty, make_app):
    well_formed_reviews(chatty)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "First, alone", key="f12")
        await pilot.press("f8")
        await ask(pilot, "Then a vote")
        await pilot.press("ctrl+r")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ReportScreen) and bool(app.screen.query(".report-section"))
        )
        screen = app.screen
        text = report_text(screen)
        assert "run 2 of 2 · All · Critique & vote" in text
        assert "Borda points" in text and "first places" in text and "mean overall" in text
        assert "Critique by ChatGPT" in text and "counted" in text
        assert "reviewer" in text  # the critique calls, with their role
        await pilot.press("left")
        await wait_until(pilot, lambda: "run 1 of 2" in report_text(screen))
        assert "Borda" not in report_text(screen)
        await pilot.press("left")  # already the first run: stays
        await pilot.press("right")
        await wait_until(pilot, lambda: "run 2 of 2" in report_text(screen))


async def test_exports_from_the_report_and_the_palette(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "Export <script>alert(1)</script> me")
        exports = workspace.paths.exports
        for command in app.get_system_commands(app.screen):
            if command.title.startswith(("Export last run as", "Export chat as")):
                command.callback()
        written = sorted(path.name for path in exports.iterdir())
        assert len(written) == 6
        for path in exports.glob("*.html"):
            page = path.read_text()
            assert page.startswith("<!DOCTYPE html>") and "<script" not in page
        run = json.loads(next(exports.glob("*-run-1.json")).read_text())
        assert run["query"].startswith("Export")
        chat = json.loads(next(exports.glob("*-chat.json")).read_text())
        assert [m["role"] for m in chat["session"]["history"]] == ["user", "assistant"]
        assert next(exports.glob("*-run-1.md")).read_text().startswith("# Run report:")

        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReportScreen))
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportPicker))
        await pilot.press("down", "down", "enter")  # this run as HTML
        await wait_until(pilot, lambda: len(list(exports.iterdir())) == 7)
        assert (exports / f"{workspace.session.id.replace('_', '-')}-run-1-2.html").exists()
        assert isinstance(app.screen, ReportScreen)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert "Export this run as JSON" in titles and "Send with All" not in titles


async def test_a_chat_without_messages_is_not_exported(workspace, chatty, make_app):
    """A new chat's export was a file holding nothing."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for command in app.get_system_commands(app.screen):
            if command.title.startswith("Export chat as"):
                command.callback()
        await pilot.pause()
        assert not workspace.paths.exports.exists() or not any(workspace.paths.exports.iterdir())
        assert app.main.chat.status.text == "This chat has no messages yet: ask a question first."


async def test_at_80_columns_the_status_line_shows_the_exported_files_name(workspace, chatty, make_app):
    """The status line is cut at the terminal's width; "Exported to ~/…/Exports/" lost the name."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "Export me", key="f2")
        app.main.archive_flow.export_chat("md")
        await pilot.pause()
        name = f"{workspace.session.id.replace('_', '-')}-chat.md"
        assert (workspace.paths.exports / name).exists()
        assert app.main.chat.status.text == f"Exported {name} to {workspace.paths.exports}"
        assert f"Exported {name} to " in app.main.chat.status.render_line(0).text  # as drawn


async def test_history_lists_past_chats_and_reopens_one(workspace, chatty, make_app, sample_pdf):
    app = make_app(pdf=sample_pdf)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "Question of the first chat", key="f2")
        first = workspace.session.id
        await pilot.press("ctrl+n")
        await ask(pilot, "Question of the second chat", key="f3")
        assert workspace.session.pdf_path is None
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        table = app.screen.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(index)] for index in range(table.row_count)]
        assert [row[1] for row in rows] == ["Question of the second chat", "Question of the first chat"]
        assert rows[0][0].endswith("●") and rows[1][2] == "1" and rows[1][3].startswith("$")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: workspace.session.id == first)
        await pilot.pause()
        assert [e.message.text for e in app.query(ChatEntry)] == ["Question of the first chat", "Claude answer"]
        assert first in app.sub_title
        assert workspace.session.pdf_path == str(sample_pdf.resolve())
        await show_pane(pilot, "attachments")
        assert sample_pdf.name in str(app.query_one("#pdf-info").content)
        assert app.main.model_pane("Claude").output is not None and app.main.model_pane("Gemini").output is None
        assert app.main.choices.mode.value == "claude"


async def test_reopening_a_chat_during_a_run_cancels_it_and_keeps_the_question(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "Earlier chat", key="f12")
        earlier = workspace.session.id
        await pilot.press("ctrl+n")
        chatty["Gemini"].scripts["proposer"] = [Hang()]
        await type_text(pilot, "Never answered")
        await pilot.press("f3")
        await wait_until(pilot, lambda: bool(app.main.chat.log_view.items))
        assert await app.main.archive_flow.reopen_session(earlier)
        await settle(pilot)
        assert workspace.session.id == earlier and app.main.turns.turn is None
        assert app.main.chat.input.text == "Never answered"
        assert not await app.main.archive_flow.reopen_session(earlier)  # already open


async def test_with_no_runs_yet_the_report_and_a_run_export_say_so_and_write_nothing(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await pilot.pause()
        app.main.archive_flow.export_last_run("md")
        await pilot.pause()
        assert app.main.chat.status.text == NO_RUNS  # said in the status line: toasts are for errors
        assert not app._notifications
        assert not isinstance(app.screen, ReportScreen)
        assert not workspace.paths.exports.exists() or not any(workspace.paths.exports.iterdir())


async def test_the_history_filters_as_the_user_types_renames_and_deletes_after_a_confirmation(
    workspace, chatty, make_app
):
    from ensemble_tui.ui.screens.confirm import ConfirmScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "Why does attention scale?", key="f2")
        first = workspace.session.id
        await pilot.press("ctrl+n")
        await ask(pilot, "What is the baseline?", key="f2")
        await pilot.press("ctrl+n")
        await ask(pilot, "Which table has the results?", key="f2")
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        screen = app.screen
        table = screen.query_one(DataTable)

        def questions() -> list[str]:
            return [str(table.get_row_at(index)[1]) for index in range(table.row_count)]

        assert len(questions()) == 3
        await pilot.press(*"attention")  # the filter has the focus
        await pilot.pause()
        assert questions() == ["Why does attention scale?"]
        await pilot.press("tab", "r")  # to the list; r renames
        await pilot.pause()
        await pilot.press("ctrl+a", "ctrl+k")  # clear the field (Home, delete to the end)
        await pilot.press(*"Scaling notes", "enter")
        await pilot.pause()
        assert questions() == ["Scaling notes"]
        assert [s.name for s in workspace.archive.sessions() if s.id == first] == ["Scaling notes"]
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("enter")  # the focus is on "Keep": a stray Enter deletes nothing
        await wait_until(pilot, lambda: app.screen is screen)
        assert first in {s.id for s in workspace.archive.sessions()}
        transcript = workspace.paths.chats / f"{first}.md"
        assert transcript.exists()
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.click("#confirm-yes")
        await wait_until(pilot, lambda: app.screen is screen)
        assert first not in {s.id for s in workspace.archive.sessions()}
        assert not transcript.exists() and workspace.archive.turns(first) == []
        assert questions() == [] and "Deleted the chat" in str(screen.query_one("#history-status").content)


async def test_after_a_rename_the_cursor_stays_on_the_chat_and_left_right_move_between_buttons(
    workspace, chatty, make_app
):
    """Issue 35 §5: after a rename the cursor jumped back to row 1, so a following d acted on the
    open chat; in the delete dialog ←/→ did not move between the buttons."""
    from ensemble_tui.ui.screens.confirm import ConfirmScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "Why does attention scale?", key="f2")
        first = workspace.session.id
        await pilot.press("ctrl+n")
        await ask(pilot, "What is the baseline?", key="f2")
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        screen = app.screen
        table = screen.query_one(DataTable)
        await pilot.press("tab", "down")  # to the list, then the older chat (row 2)
        await pilot.pause()
        assert screen.highlighted().id == first
        await pilot.press("r", "ctrl+a", "ctrl+k", *"Scaling notes", "enter")
        await pilot.pause()
        assert str(table.get_row_at(table.cursor_row)[1]) == "Scaling notes"
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        dialog = app.screen
        assert "Scaling notes" in str(dialog.query_one(".dialog-title").content)
        assert dialog.focused.id == "confirm-no"
        await pilot.press("left")
        await pilot.pause()
        assert dialog.focused.id == "confirm-yes"
        await pilot.press("right")
        await pilot.pause()
        assert dialog.focused.id == "confirm-no"
        await pilot.press("left", "enter")
        await wait_until(pilot, lambda: app.screen is screen)
        assert first not in {s.id for s in workspace.archive.sessions()}


async def test_at_80x24_the_report_pages_without_tab_and_keeps_ids_and_costs_whole(workspace, chatty, make_app):
    """Issue 35 §7: PageDown did nothing until Tab left the list of runs, and the calls table
    wrapped model ids and costs (`claude-son`/`net-4-6`)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "Why does attention scale?", key="f5")
        await pilot.press("ctrl+r")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ReportScreen) and bool(app.screen.query(".report-section"))
        )
        screen = app.screen
        body = screen.query_one("#report-body")
        assert screen.focused.id == "report-runs" and body.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0 and screen.focused.id == "report-runs"
        await pilot.press("pageup")
        await pilot.pause()
        assert body.scroll_y == 0
        calls = next(w for w in screen.query(".report-section") if "Calls" in rendered_text(w.content, 200))
        lines = rendered_text(calls.content, width=calls.size.width).splitlines()
        records = workspace.archive.turns(workspace.session.id)[-1].record.calls
        for call in records:
            assert any(call.model in line and f"${call.cost_usd:.4f} est." in line for line in lines), call.model


async def test_the_reports_passage_key_follows_the_run_shown(workspace, chatty, make_app, sample_pdf):
    """`o` opens the run's first checked quote: the footer offers it on a run with one, and not
    on a run without (it kept the first run's state when another was picked)."""
    from tests.ui.test_paper_view import REPLY

    workspace.select_pdf(sample_pdf)
    chatty["ChatGPT"].scripts["proposer"] = [REPLY, "No quotation in this one."]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "What does the paper report?", key="f12")
        await ask(pilot, "And without quoting?", key="f12")
        await pilot.press("ctrl+r")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ReportScreen) and "run 2 of 2" in report_text(app.screen)
        )
        await pilot.pause()
        assert "Passage" not in footer_line(app)
        await pilot.press("left")
        await wait_until(pilot, lambda: "run 1 of 2" in report_text(app.screen))
        await pilot.pause()
        assert "o Passage" in footer_line(app)
        await pilot.press("right")
        await wait_until(pilot, lambda: "run 2 of 2" in report_text(app.screen))
        await pilot.pause()
        assert "Passage" not in footer_line(app)
