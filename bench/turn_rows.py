"""Row 1: a turn costs only its model calls.

Every model call takes exactly `latency_s` (1 s, bench/sizes.py) in the simulator (a separate process).
A turn's critical path is then `waves x latency_s`, where a wave is a set of calls that run together
(proposers, then the aggregator, ...); the waves are found from when the calls started, as the
engine saw them, so a repair request or a retry would show up as the extra wave it is. The
wall time of `Engine.run(mode, text, style)`, consumed to the end, over that critical path is
the turn overhead: the real SDK client stacks, the engine, prompts, packets, saving the session.

The baseline replays the same waves (same number of concurrent calls) with bare `httpx2` posts
to the same simulator: the floor that loopback HTTP and the simulator cost on this machine now.
"""

from __future__ import annotations

import asyncio
import math
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import httpx2

from bench.apps import CallTimes, timed_providers
from bench.simproc import simulator_env
from bench.sizes import FULL, Sizes
from bench.table import Row, error_row, ratio, seconds, verdict
from ensemble_tui.bootstrap import attach_providers
from ensemble_tui.core.chat.modes import Mode, RunMode, Style
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import ReplyCommitted, RunFailed
from ensemble_tui.core.workspace import Workspace

GOAL = 1.05


@dataclass(frozen=True)
class TurnCase:
    key: str
    what: str
    mode: RunMode
    style: Style = Style.AGGREGATE
    tags: str = ""
    claim_map: bool = False  # the claim map's call (issue 26): off except in the row that measures it


CASES = (
    TurnCase("1.a", "turn overhead: single ChatGPT", Mode.CHATGPT),
    TurnCase("1.b", "turn overhead: single Claude", Mode.CLAUDE),
    TurnCase("1.c", "turn overhead: single Gemini", Mode.GEMINI),
    TurnCase("1.d", "turn overhead: All x5, 1 aggregator pass", Mode.ALL, tags="[one-pass]"),
    TurnCase(
        "1.d-with-map",
        "turn overhead: All x5, 1 aggregator pass, claim map on",
        Mode.ALL,
        tags="[one-pass]",
        claim_map=True,
    ),
    TurnCase("1.e", "turn overhead: All x5, 2 aggregator passes", Mode.ALL),
    TurnCase("1.f", "turn overhead: All x5, council", Mode.ALL, Style.COUNCIL),
    TurnCase("1.g", "turn overhead: All x5, critique & vote", Mode.ALL, Style.VOTE),
    TurnCase("1.h", "turn overhead: All x5, debate (3 rounds)", Mode.ALL, Style.DEBATE),
)


def waves(spans: list[tuple[str, float, float]], latency_s: float) -> list[int]:
    """Sizes of the groups of calls that ran together: a call starting more than half a latency
    after the first call of the current group opens a new group."""
    sizes: list[int] = []
    group_start: float | None = None
    for _label, start, _end in sorted(spans, key=lambda span: span[1]):
        if group_start is None or start - group_start > latency_s / 2:
            sizes.append(0)
            group_start = start
        sizes[-1] += 1
    return sizes


async def run_turn(
    engine: Engine, case: TurnCase, number: int, times: CallTimes, latency_s: float
) -> tuple[float, list[int]]:
    """Wall time of one turn and its waves; raises if the turn did not end with a final reply."""
    times.spans.clear()
    engine.workspace.settings.claim_map = case.claim_map  # its call must share the aggregator's wave
    text = f"{case.tags} Question {number}: what does the paper claim about aggregation?".strip()
    started = time.perf_counter()
    events = [event async for event in engine.run(case.mode, text, case.style)]
    wall = time.perf_counter() - started
    failed = [event.message for event in events if isinstance(event, RunFailed)]
    if failed or not any(isinstance(event, ReplyCommitted) for event in events):
        raise RuntimeError(f"the turn failed: {failed[0] if failed else 'no final reply'}")
    return wall, waves(times.spans, latency_s)


async def bare_replay(env: dict[str, str], sizes: list[int], latency_s: float) -> float:
    """The same waves as bare concurrent Chat Completions posts to the simulator."""
    url = env["ENSEMBLE_TUI_SIMULATOR_CHAT_URL"] + "/replay/v1/chat/completions"
    body = {"model": "bare", "messages": [{"role": "user", "content": f"[lat={latency_s}] Bare call."}]}
    headers = {"authorization": "Bearer sk-bare-replay"}
    async with httpx2.AsyncClient(timeout=30) as client:
        await client.post(
            url, json={**body, "messages": [{"role": "user", "content": "[lat=0] warm"}]}, headers=headers
        )
        started = time.perf_counter()
        for size in sizes:
            replies = await asyncio.gather(*(client.post(url, json=body, headers=headers) for _ in range(size)))
            for reply in replies:
                reply.raise_for_status()
        return time.perf_counter() - started


async def measure(home: Path, env: dict[str, str], repeats: int, sizes: Sizes) -> list[Row]:
    latency_s = sizes.latency_s
    # The smoke run (bench/sizes.py) runs a few of the cases: the others differ only in their style.
    cases = [case for case in CASES if not sizes.turn_cases or case.key in sizes.turn_cases]
    workspace = Workspace.open(home)
    attach_providers(workspace, env)
    times = timed_providers(workspace)
    engine = Engine(workspace)
    rows: list[Row] = []
    try:
        # Warm-up, not timed: SDK imports, PDF uploads and text extraction, open connections.
        await run_turn(engine, TurnCase("warm", "", Mode.ALL, tags="[lat=0] [one-pass]"), 0, times, latency_s)
        for number, case in enumerate(cases, start=1):
            try:
                runs = [
                    await run_turn(engine, case, number * 10 + attempt, times, latency_s) for attempt in range(repeats)
                ]
            except Exception as exc:  # one broken style must not hide the other rows
                rows.append(error_row(case.key, case.what, exc))
                continue
            walls = [wall for wall, _ in runs]
            waves_of = runs[0][1]
            wall = statistics.median(walls)
            critical = len(waves_of) * latency_s
            bare = await bare_replay(env, waves_of, latency_s) if sizes.baselines else math.nan
            rows.append(
                Row(
                    case.key,
                    case.what,
                    seconds(wall),
                    f"crit {critical:.2f} s; bare {seconds(bare)}",
                    ratio(wall, critical),
                    f"<= {GOAL}",
                    verdict(wall / critical <= GOAL),
                    f"{len(waves_of)} waves of {waves_of} calls; median of {repeats}: "
                    + ", ".join(f"{w:.3f}" for w in walls)
                    + f" s; bare replay / crit = {ratio(bare, critical)}",
                )
            )
    finally:
        for adapter in workspace.providers.values():
            await adapter.aclose()  # type: ignore[attr-defined]
    return rows


def run(root: Path, repeats: int, sizes: Sizes = FULL, shared_env: dict[str, str] | None = None) -> list[Row]:
    from bench.homes import make_home

    home = make_home(root, "turns")
    with simulator_env(sizes.latency_s, shared_env) as env:
        return asyncio.run(measure(home, env, repeats, sizes))
