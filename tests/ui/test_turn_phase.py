"""Issue 31: one record of the turn on screen, its phase included. While a reply is under way
the user may not send; once it is shown and only its claim map is drawn, the user may (a new turn
drops the map), and the quit dialog says what quitting would drop now."""

from __future__ import annotations

import random

from textual.widgets import Button

from ensemble_tui.core.provider import Reply, Usage
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.handle import TurnPhase
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.gc_schedule import CollectorPolicy
from ensemble_tui.ui.notify import RecordingNotifier
from ensemble_tui.ui.screens.quit_confirm import ENDED_QUESTION, MAPPING_QUESTION, QUESTION, QuitConfirm
from tests.support import Held, no_sleep
from tests.ui.conftest import SIZE, type_text, wait_until
from tests.ui.long_reply_app import LateMapper, demo_map


def slow_reply_app(home) -> tuple[EnsembleApp, Held, Held]:
    """ChatGPT aggregates, then draws a readable map, each when the test releases it."""
    workspace = Workspace.open(home)
    providers = {label: LateMapper(label, default=f"{label} answer") for label in ("ChatGPT", "Claude", "Gemini")}
    final = Held(Reply("FINAL REPLY:\nThe reply.", Usage(input_tokens=1000, output_tokens=200)))
    claim_map = Held(demo_map)
    providers["ChatGPT"].map_delay_s = 0.0
    providers["ChatGPT"].scripts = {"aggregator": [final], "mapper": [claim_map]}
    workspace.attach_providers(providers, {})  # type: ignore[arg-type]
    workspace.update_settings(claim_map=True)
    engine = Engine(workspace, rng=random.Random(5), sleep=no_sleep, timeout_s=20)
    app = EnsembleApp(workspace, engine=engine, notifier=RecordingNotifier(), collector=CollectorPolicy(enabled=False))
    return app, final, claim_map


def dialog_question(app: EnsembleApp) -> str:
    return str(app.screen.query_one("#quit-question").render())


async def test_the_quit_dialog_follows_the_turn_from_its_reply_to_its_map(home):
    app, final, claim_map = slow_reply_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "What does the paper say?")
        await pilot.press("f5")
        await wait_until(pilot, lambda: app.main.turns.running)
        assert not app.main.turns.may_send  # a reply is under way: one answer, from the one record
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitConfirm))
        assert dialog_question(app) == QUESTION
        assert str(app.screen.query_one("#quit-stay", Button).label) == "Keep waiting (Esc)"
        final.release.set()
        # the reply is kept while the dialog is open: it no longer says a reply is under way
        await wait_until(pilot, lambda: app.main.turns.map_pending)
        assert (
            app.main.turns.may_send
            and app.main.turns.turn is not None
            and app.main.turns.turn.phase is TurnPhase.MAPPING
        )
        await wait_until(pilot, lambda: dialog_question(app) == MAPPING_QUESTION)
        claim_map.release.set()
        await wait_until(pilot, lambda: app.main.turns.turn is None)  # the map came
        await wait_until(pilot, lambda: dialog_question(app) == ENDED_QUESTION)
        assert str(app.screen.query_one("#quit-stay", Button).label) == "Stay (Esc)"  # nothing to wait for
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, QuitConfirm))
        assert app.main.chat.status.text.endswith("Claims mapped.")


async def test_while_the_map_is_drawn_the_status_line_says_so_and_cancel_is_off(home):
    app, final, claim_map = slow_reply_app(home)
    final.release.set()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "What does the paper say?")
        await pilot.press("f5")
        await wait_until(pilot, lambda: app.main.turns.map_pending)
        assert "Drawing the claim map…" in app.main.chat.status.text
        assert not app.main.chat.status.running  # no spinner, no clock: the reply is in
        assert app.main.check_action("do", ("run.cancel",)) is False  # Esc has no reply to cancel
        claim_map.release.set()
        await wait_until(pilot, lambda: app.main.turns.turn is None)
        assert "Drawing the claim map" not in app.main.chat.status.text
