"""The demo's status line says what the chat would cost with real providers, labelled simulated."""

from __future__ import annotations

import re

from tests.ui.conftest import SIZE, settle, type_text


async def test_the_demo_status_line_says_the_cost_is_simulated(workspace, chatty, make_app):
    app = make_app(demo=True)
    async with app.run_test(size=SIZE) as pilot:
        assert app.main.chat.status.shown.cost.plain == "Session would cost $0.00 (simulated)"
        await type_text(pilot, "Costs")
        await pilot.press("f5")
        await settle(pilot)
        assert workspace.session.cost_usd > 0
        shown = app.main.chat.status.shown.cost.plain
        assert re.fullmatch(r"Session would cost \$0\.\d\d \(simulated\)", shown), shown
        assert shown != "Session would cost $0.00 (simulated)"
