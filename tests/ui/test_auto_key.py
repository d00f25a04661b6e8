"""Auto in the app (issue 27 §3): F11 and the Auto button send in auto mode, against the demo
simulator through the real SDKs. An agreeing question is answered by ChatGPT twice, and the line
under the reply says so; a HERON question (the demo's disagreeing one) escalates and says why."""

from __future__ import annotations

import json

from textual.widgets import Select

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.simulator.demo import DemoSimulator, role_of
from ensemble_tui.ui.screens.help import key_groups
from ensemble_tui.ui.widgets.action_bar import ModeButton, button_id
from tests.ui.conftest import SIZE, rendered_text, settle, show_pane, type_text
from tests.ui.test_claims_view import demo_app


def proposals(sim: DemoSimulator, api: str) -> int:
    return sum(role_of(call.text) == "proposal" for call in getattr(sim, api).calls)


async def test_f11_sends_in_auto_and_the_reply_says_whether_it_escalated(home, sample_pdf):
    workspace = Workspace.open(home)
    with DemoSimulator(seed=3, latency=(0.0, 0.0)) as sim:
        async with demo_app(workspace, sim, sample_pdf) as app, app.run_test(size=SIZE) as pilot:
            await type_text(pilot, "What does the paper say about anonymity?")
            await pilot.press("f11")
            await settle(pilot)
            shown = rendered_text(app.main.chat.log_view.entries[-1].content)
            assert "auto · 2 calls · agreed" in shown
            assert (proposals(sim, "openai"), proposals(sim, "anthropic"), proposals(sim, "gemini")) == (2, 0, 0)
            assert workspace.session.last_mode == "auto"
            assert app.query_one(f"#{button_id(Mode.AUTO)}", ModeButton).has_class("-default")

            await type_text(pilot, "And what does HERON-7 show?")
            await pilot.click(f"#{button_id(Mode.AUTO)}")
            await settle(pilot)
            shown = rendered_text(app.main.chat.log_view.entries[-1].content)
            assert "auto · escalated: 1 disputed claim" in shown
            # ChatGPT's two samples were reused: no third ChatGPT proposal; the others asked once
            assert (proposals(sim, "openai"), proposals(sim, "anthropic"), proposals(sim, "gemini")) == (4, 1, 1)


async def test_auto_is_listed_with_its_key_in_help_and_the_palette(workspace, chatty, make_app):
    turns = key_groups({}, ())["Turns"]
    (row,) = [row for row in turns if row.keys == "F11"]
    assert "Auto" in row.what and "disagree" in row.what
    app = make_app()
    async with app.run_test(size=SIZE):
        (auto,) = [c for c in app.get_system_commands(app.screen) if c.title == "Send with Auto"]
        assert "(F11)" in auto.help


async def test_who_auto_asks_first_is_chosen_in_settings_and_saved(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await show_pane(pilot, "settings")
        select = app.query_one("#auto-pair", Select)
        assert select.value == "samples"
        select.value = "two-models"
        await pilot.pause()
        assert json.loads(workspace.paths.settings_file.read_text())["auto_pair"] == "two-models"
        assert workspace.settings.auto_pair == "two-models"
