"""Row 1: a turn costs only its model calls.

Every model call takes exactly `latency_s` (1 s, bench/sizes.py) in the simulator (a separate process).
A turn's critical path is then `waves x latency_s`, where a wave is a set of calls that run together
(proposers, then the aggregator, ...); the waves are found from when the calls started, as the
engine saw them, so a repair request or a retry would show up as the extra wave it is.

The row compares the wall time of `Engine.run(mode, text, style)`, consumed to the end, with a
replay of the same model calls right after it (bench/sdk_calls.py): the very requests the turn
sent, made again through the same SDK clients on the same provider loop, in the same waves.
The replay costs what the protocols cost (the SDKs' request building and reply parsing,
OpenRouter's inline PDF, loopback HTTP, the simulator); what the turn takes beyond it is the
app's own overhead: the engine, prompts, packets, the adapters' work around each SDK call,
saving the session. The turn over the critical path is in the note, as before.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from bench.apps import CallTimes, timed_providers
from bench.sdk_calls import SdkCalls, in_waves, record_sdk_calls, replay, wave_gaps
from bench.simproc import simulator_env
from bench.sizes import FULL, Sizes
from bench.table import Row, error_row, ratio, seconds, verdict
from ensemble_tui.bootstrap import attach_providers
from ensemble_tui.core.chat.modes import Mode, RunMode, Style
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import ReplyCommitted, RunFailed
from ensemble_tui.core.workspace import Workspace

GOAL = 1.05  # the turn over the replay of its calls


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


@dataclass(frozen=True)
class TurnRun:
    """One turn: when it started and ended (perf_counter seconds) and its waves' sizes."""

    started: float
    ended: float
    waves: list[int]

    @property
    def wall(self) -> float:
        return self.ended - self.started


async def run_turn(engine: Engine, case: TurnCase, number: int, times: CallTimes, latency_s: float) -> TurnRun:
    """One turn, timed; raises if it did not end with a final reply."""
    times.spans.clear()
    engine.workspace.settings.claim_map = case.claim_map  # its call must share the aggregator's wave
    text = f"{case.tags} Question {number}: what does the paper claim about aggregation?".strip()
    started = time.perf_counter()
    events = [event async for event in engine.run(case.mode, text, case.style)]
    ended = time.perf_counter()
    failed = [event.message for event in events if isinstance(event, RunFailed)]
    if failed or not any(isinstance(event, ReplyCommitted) for event in events):
        raise RuntimeError(f"the turn failed: {failed[0] if failed else 'no final reply'}")
    return TurnRun(started, ended, waves(times.spans, latency_s))


@dataclass(frozen=True)
class Pair:
    """A turn and the replay of its model calls, made right after it."""

    turn: TurnRun
    replay_s: float
    turn_gaps: list[float]  # seconds in no call: before the first wave, between waves, after the last
    replay_gaps: list[float]


async def turn_and_replay(
    engine: Engine, case: TurnCase, number: int, times: CallTimes, calls: SdkCalls, latency_s: float
) -> Pair:
    calls.clear()
    turn = await run_turn(engine, case, number, times, latency_s)
    made = in_waves(calls.calls, turn.waves)
    started = time.perf_counter()
    replay_s, replayed = await replay(made)
    return Pair(
        turn,
        replay_s,
        wave_gaps(made, turn.started, turn.ended),
        wave_gaps(replayed, started, started + replay_s),
    )


def _ms(values: list[float]) -> str:
    return "/".join(f"{value * 1000:.0f}" for value in values)


def case_row(case: TurnCase, pairs: list[Pair], latency_s: float) -> Row:
    """The median turn over the median replay; each pair's figures in the note, with the time
    in no call (before the first request, between waves, after the last answer) of the median
    pair, where the app's own work shows."""
    walls = [pair.turn.wall for pair in pairs]
    replays = [pair.replay_s for pair in pairs]
    wall, bare = statistics.median(walls), statistics.median(replays)
    waves_of = pairs[0].turn.waves
    critical = len(waves_of) * latency_s
    middle = sorted(pairs, key=lambda pair: pair.turn.wall)[len(pairs) // 2]
    return Row(
        case.key,
        case.what,
        seconds(wall),
        f"replay {seconds(bare)}; crit {critical:.2f} s",
        ratio(wall, bare),
        f"<= {GOAL}",
        verdict(wall / bare <= GOAL),
        f"{len(waves_of)} waves of {waves_of} calls; turn/replay: "
        + ", ".join(f"{pair.turn.wall:.3f}/{pair.replay_s:.3f}" for pair in pairs)
        + f" s; over the critical path: turn {ratio(wall, critical)}, replay {ratio(bare, critical)};"
        + f" in no call (ms, before/between/after the waves): turn {_ms(middle.turn_gaps)},"
        + f" replay {_ms(middle.replay_gaps)}",
    )


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
        calls = record_sdk_calls(workspace)  # the SDK clients exist now
        for number, case in enumerate(cases, start=1):
            try:
                pairs = [
                    await turn_and_replay(engine, case, number * 10 + attempt, times, calls, latency_s)
                    for attempt in range(repeats)
                ]
            except Exception as exc:  # one broken style must not hide the other rows
                rows.append(error_row(case.key, case.what, exc))
                continue
            rows.append(case_row(case, pairs, latency_s))
    finally:
        for adapter in workspace.providers.values():
            await adapter.aclose()  # type: ignore[attr-defined]
    return rows


def run(root: Path, repeats: int, sizes: Sizes = FULL, shared_env: dict[str, str] | None = None) -> list[Row]:
    from bench.homes import make_home

    home = make_home(root, "turns")
    with simulator_env(sizes.latency_s, shared_env) as env:
        return asyncio.run(measure(home, env, repeats, sizes))
