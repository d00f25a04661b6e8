"""Row 1's baseline is fair: the replay it times sends the very requests the turn sent (same
providers, paths and bodies, OpenRouter's inline PDF included), in the turn's waves, so the row's
ratio charges the app only for its own work. Until 2026-11-27 it posted 150-byte bodies, and the
app was charged for OpenRouter's 1.26 MB body and every SDK's work. No timing is judged here."""

from __future__ import annotations

import json
from pathlib import Path

from bench.apps import timed_providers
from bench.homes import make_home
from bench.sdk_calls import in_waves, record_sdk_calls, replay
from bench.simproc import BenchSimulator
from bench.turn_rows import CASES, TurnCase, run_turn
from ensemble_tui.bootstrap import attach_providers
from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.simulator.script import RecordedRequest

LATENCY_S = 0.05  # the smoke run's calls


def sent(requests: list[RecordedRequest]) -> list[tuple[str, str, str, str]]:
    """What each model request carried, in a comparable order."""
    return sorted(
        (request.provider, request.method, request.path, json.dumps(request.body, sort_keys=True))
        for request in requests
        if request.endpoint == "generate"
    )


async def test_row_1_replays_the_very_requests_its_turn_sent(tmp_path: Path) -> None:
    home = make_home(tmp_path, "turns")  # the bench's ~1 MB paper, five proposers
    case = next(case for case in CASES if case.key == "1.d-with-map")
    with BenchSimulator(LATENCY_S) as sim:
        workspace = Workspace.open(home)
        attach_providers(workspace, sim.env)
        times = timed_providers(workspace)
        engine = Engine(workspace)
        try:
            await run_turn(engine, TurnCase("warm", "", Mode.ALL, tags="[lat=0] [one-pass]"), 0, times, LATENCY_S)
            calls = record_sdk_calls(workspace)
            first = len(sim.requests)
            turn = await run_turn(engine, case, 1, times, LATENCY_S)
            middle = len(sim.requests)
            _, replayed = await replay(in_waves(calls.calls, turn.waves))
            by_turn, by_replay = sim.requests[first:middle], sim.requests[middle:]
        finally:
            for adapter in workspace.providers.values():
                await adapter.aclose()  # type: ignore[attr-defined]

    assert turn.waves == [5, 2]  # five proposers, then the aggregator and the claim map
    assert [len(wave) for wave in replayed] == turn.waves
    assert sent(by_replay) == sent(by_turn)
    assert sum(r.raw_size for r in by_replay) == sum(r.raw_size for r in by_turn) > 1_000_000
    inline = [r for r in by_replay if r.provider == "openrouter" and r.inline_files]
    assert len(inline) == 1 and inline[0].raw_size > 1_000_000  # the PDF rides in OpenRouter's body
