"""Issue 35 #1: an empty Enter still redoes at once, but the status line names the redo while it
runs, a failed redo shows the reply again, the replaced reply stays reachable (the run report
marks it; one palette action brings it back), and the hint fits at 80 columns."""

from __future__ import annotations

import pytest
from textual.command import CommandPalette

from ensemble_tui.core.turn.engine import NOTHING_TO_BRING_BACK
from ensemble_tui.ui.screens.report import ReportScreen
from ensemble_tui.ui.widgets.chat_input import PLACEHOLDER
from tests.support import Hang, fatal
from tests.ui.conftest import SIZE, settle, type_text, wait_until
from tests.ui.test_archive_screens import report_text
from tests.ui.test_chat import entries, notices, status_text
from tests.ui.test_snapshots import SIZES, show, snapshot_app  # noqa: F401

FIRST = [("user", "Question"), ("assistant", "first reply")]


async def first_turn(pilot) -> None:
    await type_text(pilot, "Question")
    await pilot.press("f12")
    await settle(pilot)
    assert entries(pilot.app) == FIRST


def chatgpt_says(chatty, *replies) -> None:
    chatty["ChatGPT"].scripts["single"] = []
    chatty["ChatGPT"].scripts["proposer"] = list(replies)


async def test_the_status_line_names_a_redo_while_it_runs(workspace, chatty, make_app, monkeypatch):
    chatgpt_says(chatty, "first reply", Hang())
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await first_turn(pilot)
        status = app.main.chat.status
        shown: list[str] = []
        show = status.show
        monkeypatch.setattr(status, "show", lambda text: (shown.append(text), show(text)))
        await pilot.press("enter")  # empty: a redo, at once
        await wait_until(pilot, lambda: app.main.turns.turn is not None and "Waiting for ChatGPT" in status_text(app))
        assert "Redoing the last reply with ChatGPT…" in shown  # the line it starts with
        assert "Redo: Waiting for ChatGPT…" in status_text(app)  # its progress lines still name it
        await pilot.press("escape")
        await settle(pilot)


async def test_a_failed_redo_shows_the_reply_it_was_to_replace(workspace, chatty, make_app):
    chatgpt_says(chatty, "first reply", fatal("ChatGPT"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await first_turn(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert any("401" in line for line in notices(app, "error"))
        assert entries(app) == FIRST
        assert [(m.role, m.text) for m in workspace.session.history] == FIRST
        assert "first reply" in workspace.store.transcript_path(workspace.session).read_text()
        assert "the last reply is kept" in status_text(app)


async def bring_back_from_the_palette(pilot) -> None:
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*"Bring back the replaced")
    await pilot.pause(0.3)
    await pilot.press("enter")
    await wait_until(pilot, lambda: not isinstance(app.screen, CommandPalette))
    await settle(pilot)


async def test_the_palette_brings_the_replaced_reply_back_until_a_newer_turn(workspace, chatty, make_app):
    chatgpt_says(chatty, "first reply", "second reply", "third reply")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await first_turn(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert entries(app) == [("user", "Question"), ("assistant", "second reply")]

        await bring_back_from_the_palette(pilot)

        await wait_until(pilot, lambda: entries(app) == FIRST)
        assert [(m.role, m.text) for m in workspace.session.history] == FIRST
        assert "first reply" in workspace.store.transcript_path(workspace.session).read_text()
        stored = workspace.store.archived(workspace.session.id)
        assert [(m.role, m.text) for m in stored.history] == FIRST
        assert stored.replaced is not None and stored.replaced.text == "second reply"  # and back again

        await type_text(pilot, "Next question")
        await pilot.press("f12")
        await settle(pilot)
        await bring_back_from_the_palette(pilot)
        assert entries(app)[-1] == ("assistant", "third reply")  # a newer turn: nothing to bring back
        assert status_text(app) == NOTHING_TO_BRING_BACK


async def test_the_run_report_marks_the_reply_a_redo_replaced(workspace, chatty, make_app):
    chatgpt_says(chatty, "first reply", "second reply")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await first_turn(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("ctrl+r")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ReportScreen) and bool(app.screen.query(".report-section"))
        )
        screen = app.screen
        await pilot.press("left")  # run 1: the reply the redo replaced
        await wait_until(pilot, lambda: "run 1 of 2" in report_text(screen))
        text = report_text(screen)
        assert "final, replaced by a redo" in text
        assert "Final reply (replaced by a redo)" in text and "first reply" in text
        await pilot.press("right")
        await wait_until(pilot, lambda: "run 2 of 2" in report_text(screen))
        assert "replaced by a redo" not in report_text(screen)


@pytest.mark.parametrize(("width", "height"), [(80, 24), (120, 40)])
async def test_the_redo_hint_fits_the_question_box(workspace, chatty, make_app, width, height):
    app = make_app()
    async with app.run_test(size=(width, height)) as pilot:
        await pilot.pause()
        box = app.main.chat.input
        assert "empty Enter redoes the last reply" in box.placeholder
        assert len(box.placeholder) <= box.content_size.width
        assert (box.placeholder == PLACEHOLDER) is (width == 120)


@pytest.mark.parametrize("size", SIZES)
def test_the_redo_hint_snapshot(snap_compare, snapshot_app, size):  # noqa: F811
    assert snap_compare(snapshot_app, terminal_size=size, run_before=show("chat"))
