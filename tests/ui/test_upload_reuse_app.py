"""A quit and restart of the app in the same chat makes one upload per provider: the restarted
app finds the uploads in the archive and every call refers to them (real SDKs, the simulator)."""

from __future__ import annotations

import random
from pathlib import Path

from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator.demo import DemoSimulator
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier
from tests.ui.conftest import SIZE, no_sleep, settle, type_text


async def one_app_run(home: Path, sim: DemoSimulator, question: str, pdf: Path | None = None) -> None:
    """Start the app on `home`, ask `question` in "All", quit."""
    workspace = Workspace.open(home)
    providers, unavailable = build_providers(workspace, env=sim.env)
    workspace.attach_providers(providers, unavailable)
    workspace.update_settings(claim_map=False)  # every call here reads the PDF; the mapper's reads none
    engine = Engine(workspace, rng=random.Random(5), sleep=no_sleep, timeout_s=20)
    app = EnsembleApp(workspace, engine=engine, notifier=RecordingNotifier(), pdf=pdf)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await type_text(pilot, question)
            await pilot.press("f5")
            await settle(pilot)
            assert workspace.session.history[-1].role == "assistant"
    finally:
        for adapter in workspace.providers.values():
            await adapter.aclose()  # type: ignore[attr-defined]
        workspace.close()


async def test_a_restart_in_the_same_chat_reuses_the_uploads(home, sample_pdf):
    with DemoSimulator(seed=3, latency=(0.0, 0.0)) as sim:
        await one_app_run(home, sim, "First question?", pdf=sample_pdf)
        await one_app_run(home, sim, "After the restart?")  # the chat and its PDF are restored
        for name, script in sim.scripts.items():
            assert len(script.uploads) == 1, name
            (held,) = script.stored
            assert len(script.calls) >= 2 and all(call.file_ids == (held.id,) for call in script.calls), name
    assert len(Workspace.open(home).session.history) == 4
