"""The app end to end against the loopback simulator: a council turn through the real SDKs.

The demo simulator answers every role in the format its parser expects; DeepSeek, enabled from
its shipped example file, joins "All" through the real openai SDK's Chat Completions client and
gets the PDF as extracted text, which its pane says.
"""

from __future__ import annotations

import json
import random

from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator.demo import DemoSimulator
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.chat_log.chat_view import VoteNotice
from ensemble_tui.ui.notify import RecordingNotifier
from tests.support import no_sleep
from tests.ui.conftest import SIZE, rendered_text, settle, type_text


async def test_a_council_turn_in_the_app_against_the_simulator(home, sample_pdf):
    seeded = Workspace.open(home)
    deepseek_file = seeded.paths.configurations / "DeepSeek.json"
    deepseek_file.write_text(json.dumps({**json.loads(deepseek_file.read_text()), "enabled": True}))
    workspace = Workspace.open(home)
    with DemoSimulator(seed=3, latency=(0.0, 0.0)) as sim:
        providers, unavailable = build_providers(workspace, env=sim.env)
        assert unavailable == {}
        workspace.attach_providers(providers, unavailable)
        engine = Engine(workspace, rng=random.Random(5), sleep=no_sleep, timeout_s=20)
        app = EnsembleApp(workspace, engine=engine, notifier=RecordingNotifier(), pdf=sample_pdf)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.press("f7")
                await type_text(pilot, "Which claim holds?")
                await pilot.press("f5")
                await settle(pilot)
                reply = workspace.session.history[-1]
                assert reply.role == "assistant" and "from the ChatGPT chair" in reply.text
                rankings = [r for r in sim.requests if "FINAL RANKING:" in r.last_user_text]
                assert len(rankings) == 4  # ChatGPT, Claude, Gemini and DeepSeek each ranked the others
                assert len(app.query(VoteNotice)) == 0  # the tally now stands with the reply
                shown = rendered_text(app.main.chat.log_view.entries[-1].content)
                assert "Council: aggregate ranking" in shown and "· Council · chairman " in shown
                assert workspace.session.last_style == "council"
                note = app.main.model_pane("DeepSeek").output.note
                assert "extracted text" in note
                (stored,) = workspace.archive.turns(workspace.session.id)
                assert stored.record.style == "council" and stored.record.outcome == "final"
        finally:
            for adapter in workspace.providers.values():
                await adapter.aclose()  # type: ignore[attr-defined]
