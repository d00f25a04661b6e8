"""The claim map in the app, against the demo simulator through the real SDKs (issue 26).

`--demo` plants a contradiction: ChatGPT quotes the paper's 87 correctly (✓), Claude misquotes
it as 92 (✗). An All turn must show the map's summary under the reply, and the Claims view
(a tab of Compare: F10, the palette's "Claims", or `c` in Compare) must list that contradiction
first with both stances.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator.demo import DemoSimulator
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier
from ensemble_tui.ui.screens.claims import NO_MAP, ClaimCard
from ensemble_tui.ui.screens.compare import CLAIMS, PROPOSALS, CompareColumn, CompareScreen
from tests.support import no_sleep
from tests.ui.conftest import SIZE, rendered_text, restarted_app, settle, type_text, wait_until


def on_claims(app: EnsembleApp) -> bool:
    return isinstance(app.screen, CompareScreen) and app.screen.tab == CLAIMS


@asynccontextmanager
async def demo_app(workspace: Workspace, sim: DemoSimulator, pdf) -> AsyncIterator[EnsembleApp]:
    """The app on the demo simulator through the real adapters, the map on; the adapters are
    closed after it."""
    providers, unavailable = build_providers(workspace, env=sim.env)
    workspace.attach_providers(providers, unavailable)
    workspace.update_settings(claim_map=True)
    engine = Engine(workspace, rng=random.Random(5), sleep=no_sleep, timeout_s=20)
    try:
        yield EnsembleApp(workspace, engine=engine, notifier=RecordingNotifier(), pdf=pdf)
    finally:
        for adapter in workspace.providers.values():
            await adapter.aclose()  # type: ignore[attr-defined]


async def test_the_planted_contradiction_is_the_first_claim_with_both_stances_and_a_reopened_chat_shows_it(
    home, sample_pdf
):
    """The line under a reply names the key that opens the map (issue 35 polish: it did not say
    that F10 does), and the view lists the planted contradiction first with both stances.
    Reopened, the line and the view come from the run's record, and the key named is the action
    table's after Keymap.json: a remapped key is the one named. One demo turn serves the live
    checks and both restarts (they were two tests, each running the same turn)."""
    import json

    workspace = Workspace.open(home)
    with DemoSimulator(seed=3, latency=(0.0, 0.0)) as sim:
        async with demo_app(workspace, sim, sample_pdf) as app, app.run_test(size=SIZE) as pilot:
            await type_text(pilot, "How much does aggregation help?")
            await pilot.press("f5")
            await settle(pilot)
            shown = rendered_text(app.main.chat.log_view.entries[-1].content)
            assert "1 disputed" in shown and "confidence medium" in shown  # the line under the reply
            assert "· F10 opens the map" in shown
            await pilot.press("f10")
            await wait_until(pilot, lambda: on_claims(app))
            cards = list(app.screen.query(ClaimCard))
            first = cards[0]
            assert first.claim.kind == "contradiction" and app.screen.focused is first
            text = rendered_text(first.content, width=78)
            assert "Disputed:" in text and "87 of the 120" in text
            chatgpt = next(line for line in text.splitlines() if line.lstrip().startswith("ChatGPT"))
            claude = next(line for line in text.splitlines() if line.lstrip().startswith("Claude"))
            assert "supports" in chatgpt and "answered 87 correctly" in chatgpt and "✓ p. 1" in chatgpt
            assert "contradicts" in claude and "answered 92 correctly" in claude and "✗ not in the paper" in claude
            await pilot.press("down")
            assert app.screen.focused is cards[1]
            await pilot.press("p")  # the other tab: the proposals, the first column focused
            await wait_until(pilot, lambda: app.screen.tab == PROPOSALS)
            assert isinstance(app.screen.focused, CompareColumn)
            await pilot.press("c")
            await wait_until(pilot, lambda: app.screen.tab == CLAIMS and app.screen.focused is cards[0])
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, CompareScreen))
    again = restarted_app(home)
    async with again.run_test(size=SIZE) as pilot:
        log_view = again.main.chat.log_view
        await wait_until(pilot, lambda: "1 disputed" in rendered_text(log_view.entries[-1].content))
        await pilot.press("f10")
        await wait_until(pilot, lambda: on_claims(again))
        assert list(again.screen.query(ClaimCard))[0].claim.kind == "contradiction"
    (workspace.paths.configurations / "Keymap.json").write_text(json.dumps({"claims.open": "shift+f10"}))
    remapped = restarted_app(home)
    async with remapped.run_test(size=SIZE) as pilot:  # reopened: the line comes from the run's record
        log_view = remapped.main.chat.log_view
        await wait_until(pilot, lambda: "1 disputed" in rendered_text(log_view.entries[-1].content))
        shown = rendered_text(log_view.entries[-1].content)
        assert "· Shift+F10 opens the map" in shown and "F10 opens" not in shown.replace("Shift+F10", "")


async def test_a_run_without_a_map_says_why_instead_of_opening_the_view(make_app, chatty):
    app = make_app()  # the fixtures' workspace has the map off
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "How much does aggregation help?")
        await pilot.press("f5")
        await settle(pilot)
        assert app.main.chat.log_view.claim_lines == {}
        await pilot.press("f10")
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen)
        assert app.main.chat.status.text == NO_MAP


async def test_a_late_map_comes_under_the_shown_reply_and_fills_the_open_claims_view(home, sample_pdf):
    import threading

    from ensemble_tui.simulator.demo_claims import MAP_MARK

    workspace = Workspace.open(home)
    release = threading.Event()  # the map is held until the Claims view is open: no race with the load
    with DemoSimulator(seed=3, latency=(0.0, 0.0)) as sim:
        respond = sim.openai.default  # ChatGPT, the aggregator, draws the map

        def held(request):
            reply = respond(request)
            if MAP_MARK in request.text:
                release.wait(timeout=60)  # a server thread: the app goes on meanwhile
            return reply

        sim.openai.default = held
        try:
            async with demo_app(workspace, sim, sample_pdf) as app, app.run_test(size=SIZE) as pilot:
                await type_text(pilot, "How much does aggregation help?")
                await pilot.press("f5")
                await wait_until(pilot, lambda: "Drawing the claim map" in app.main.chat.status.text)
                assert (
                    app.main.turns.may_send and app.main.turns.map_pending
                )  # the reply is in: the next question may be sent
                assert "1 disputed" not in rendered_text(app.main.chat.log_view.entries[-1].content)
                await pilot.press("f10")  # open while the map is drawn: it fills when it comes
                await wait_until(pilot, lambda: on_claims(app))
                assert not list(app.screen.query(ClaimCard))
                release.set()
                await wait_until(pilot, lambda: bool(list(app.screen.query(ClaimCard))))
                assert list(app.screen.query(ClaimCard))[0].claim.kind == "contradiction"
                assert app.main.chat.status.text.startswith("Reply complete (All")
                assert app.main.chat.status.text.endswith("Claims mapped.")  # the summary is under the reply
                await pilot.press("escape")
                await wait_until(
                    pilot, lambda: "1 disputed" in rendered_text(app.main.chat.log_view.entries[-1].content)
                )
        finally:
            release.set()


async def test_at_80x24_up_and_down_move_between_claims_and_show_each_whole(home, sample_pdf):
    """Issue 35 §4: at 80x24 ↑/↓ scrolled one line and the highlight stayed on claim 1."""
    workspace = Workspace.open(home)
    with DemoSimulator(seed=3, latency=(0.0, 0.0)) as sim:
        async with demo_app(workspace, sim, sample_pdf) as app, app.run_test(size=(80, 24)) as pilot:
            await type_text(pilot, "How much does aggregation help?")
            await pilot.press("f5")
            await settle(pilot)
            await pilot.press("f10")
            await wait_until(pilot, lambda: on_claims(app))
            cards = list(app.screen.query(ClaimCard))
            box = app.screen.query_one("#claims-list")
            assert len(cards) >= 3 and box.max_scroll_y > 0  # the map overflows the view
            for index in [*range(1, len(cards)), *reversed(range(len(cards) - 1))]:
                await pilot.press("down" if app.screen.focused is cards[index - 1] else "up")
                await pilot.pause()
                await pilot.pause()
                assert app.screen.focused is cards[index]
                shown, card = box.content_region, cards[index].region
                assert card.height <= shown.height and shown.contains_region(card), index
