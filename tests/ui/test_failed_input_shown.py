"""A question whose turn failed shows its one-line reason under it after a restart, as it did
before; an answered retry takes the line away."""

from __future__ import annotations

from ensemble_tui.ui.chat_log.chat_view import ChatEntry, ChatNotice
from tests.ui.conftest import SIZE, restarted_app, settle, type_text


def entry_text(app, index: int) -> str:
    entry = list(app.query(ChatEntry))[index]
    lines = app.console.render_lines(entry.content, app.console.options.update_width(100))
    return "\n".join("".join(segment.text for segment in line).rstrip() for line in lines)


async def test_the_reason_of_a_failed_question_is_shown_again_after_a_restart(workspace, chatty, make_app, home):
    workspace.update_settings(budget_usd=0.0001)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Too expensive")
        await pilot.press("f5")
        await settle(pilot)
        (notice,) = [str(n.content) for n in app.query(ChatNotice) if n.kind == "error"]
        assert notice.startswith("✖ Budget stop:")
        assert "Budget stop" not in entry_text(app, 0)  # the notice says it once

    again = restarted_app(home)
    again.workspace.update_settings(budget_usd=5.0)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = entry_text(again, 0)
        assert "Too expensive" in shown and notice in " ".join(shown.split())
        again.main.chat.input.clear()  # the question is offered again in the box; an empty send retries it
        await pilot.press("enter")
        await settle(pilot)
        assert [entry.message.role for entry in again.query(ChatEntry)] == ["user", "assistant"]
        assert "Budget stop" not in entry_text(again, 0)
