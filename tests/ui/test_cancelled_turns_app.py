"""Issue 34 §2, done when: "F5 then Esc, four times in the app, leaves the chat usable and its
cost under $1". Before, each cancelled All turn booked its three calls at their reserved worst
case (about $3 a turn with the shipped models), so after four the chat read $5.00 and every
later turn was refused. Through the real SDKs and the loopback demo simulator."""

from __future__ import annotations

import random
import re

from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator.demo import DemoSimulator
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier
from tests.support import no_sleep
from tests.ui.conftest import SIZE, settle, type_text, wait_until

WAITING = "waiting: ChatGPT, Claude, Gemini"  # the status line while the three proposals are out


def status(app: EnsembleApp) -> str:
    return app.main.chat.status.shown.status.plain


def shown_cost(app: EnsembleApp) -> float:
    """The chat's cost as the status line shows it ("$0.0123 (simulated)")."""
    shown = app.main.chat.status.shown.cost.plain
    found = re.search(r"\$(\d+(?:\.\d+)?)", shown)
    assert found is not None, shown
    return float(found.group(1))


async def test_four_all_turns_cancelled_with_escape_leave_the_chat_usable_and_cheap(home) -> None:
    workspace = Workspace.open(home)
    with DemoSimulator(seed=3, latency=(30.0, 30.0)) as sim:  # every call hangs until cancelled
        providers, unavailable = build_providers(workspace, env=sim.env)
        workspace.attach_providers(providers, unavailable)
        engine = Engine(workspace, rng=random.Random(5), sleep=no_sleep, timeout_s=60)
        app = EnsembleApp(workspace, engine=engine, notifier=RecordingNotifier())
        try:
            async with app.run_test(size=SIZE) as pilot:
                for n in range(4):
                    await type_text(pilot, f"Cancelled question {n}")
                    await pilot.press("f5")
                    await wait_until(pilot, lambda: WAITING in status(app))
                    await pilot.pause(0.5)  # the three proposals are asked for, as the Esc 0.8 s in
                    await pilot.press("escape")
                    await settle(pilot)
                    assert workspace.session.history == []  # nothing of a cancelled turn is kept
                    app.main.chat.input.clear()  # Esc put the question back in the box
                after_cancels = shown_cost(app)
                assert after_cancels < 1.0

                sim.latency = (0.0, 0.0)
                await type_text(pilot, "Answered question")
                await pilot.press("f5")
                await settle(pilot)

                history = workspace.session.history
                assert [m.role for m in history] == ["user", "assistant"], [m.failure for m in history]
                assert history[0].text == "Answered question"
                assert workspace.session.cost_usd < 1.0
                assert shown_cost(app) < 1.0
        finally:
            for adapter in workspace.providers.values():
                await adapter.aclose()  # type: ignore[attr-defined]
