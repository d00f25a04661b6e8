"""A chat whose turn was cut off by a crash (issue 34 §2): the status line shows what its calls
still hold, and the palette or a Settings button releases it with a one-line warning."""

from __future__ import annotations

import subprocess
import sys

from textual.widgets import Button

from ensemble_tui.core.store import budget_ledger
from ensemble_tui.ui.chat_log.chat_view import ChatNotice
from tests.ui.conftest import SIZE, show_pane, wait_until


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def plant_unconfirmed(workspace, worst: float = 0.49) -> None:
    """A reservation of a process that was killed mid-turn: never settled."""
    with workspace.archive.writing() as db:
        db.execute(
            "INSERT INTO budget_reservations (session, turn, pid, process_started, worst_usd) VALUES (?, ?, ?, ?, ?)",
            (workspace.session.id, "turn-of-a-killed-process", dead_pid(), 1.0, worst),
        )


def ledger_rows(workspace) -> list:
    with workspace.archive.transaction() as db:
        return list(budget_ledger.rows(db, workspace.session.id))


def cost_text(app) -> str:
    return app.main.chat.status.shown.cost.plain


async def test_the_palette_releases_a_crashed_turns_reservations(workspace, chatty, make_app):
    plant_unconfirmed(workspace)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "up to $0.49 unconfirmed" in cost_text(app))
        (release,) = [c for c in app.get_system_commands(app.screen) if c.title == "Release unconfirmed reservations"]
        release.callback()
        await wait_until(pilot, lambda: app.main.chat.status.text.startswith("Released $0.49"))
        warnings = [str(n.content) for n in app.query(ChatNotice) if n.kind == "warning"]
        assert any("Released $0.49" in line and "billed" in line for line in warnings)
        await wait_until(pilot, lambda: "unconfirmed" not in cost_text(app))
        assert ledger_rows(workspace) == []
        release.callback()  # nothing left: it says so
        await wait_until(pilot, lambda: "nothing to release" in app.main.chat.status.text)


async def test_the_settings_button_releases_them(workspace, chatty, make_app):
    plant_unconfirmed(workspace, 0.96)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await show_pane(pilot, "settings")
        row = app.query_one("#unconfirmed-row")
        await wait_until(pilot, lambda: row.display)
        assert "up to $0.96 unconfirmed" in str(app.query_one("#unconfirmed-text").render())
        app.query_one("#release-unconfirmed", Button).press()
        await wait_until(pilot, lambda: app.main.chat.status.text.startswith("Released $0.96"))
        await wait_until(pilot, lambda: not row.display)
        assert ledger_rows(workspace) == []


async def test_a_chat_without_unconfirmed_reservations_shows_no_release(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await show_pane(pilot, "settings")
        await pilot.pause()
        assert not app.query_one("#unconfirmed-row").display
        assert "unconfirmed" not in cost_text(app)
