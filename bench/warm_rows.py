"""Row 8 (issue 18, section 5; issue 23): a warm first turn. The SDK imports and the clients'
construction, nothing more, happen before the first question needs them: in the app after its
first frame (with the engine's import), in `ask` beside its turn (core/turn/warm_up.py).

Both rows run in fresh processes (bench/child.py) against the simulator process, in a chat
whose uploads are kept from an earlier run (as after a restart, or a second `ask`): so the
imports are the whole of the first turn's extra cost. Each is compared with the same run
without the warm-up; runs of the two are interleaved.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from bench.homes import make_home
from bench.simproc import simulator_env
from bench.sizes import FULL, Sizes
from bench.table import Row, error_row, millis, ratio, seconds, verdict
from bench.ui_rows import run_child

FIRST_TURN_GOAL_S = 0.400  # issue 23: the rehearsals' ~190 ms, once per process, did not pay
ASK_GOAL = 1.15


def listed(runs: list[dict], key: str) -> str:
    return ", ".join(f"{run[key]:.3f}" for run in runs) or "-"


def median_of(runs: list[dict], key: str) -> float:
    """The median of `key` over `runs`; NaN without runs (the smoke run has no baselines)."""
    return statistics.median(run[key] for run in runs) if runs else math.nan


def prime(home: Path, env: dict[str, str], sizes: Sizes) -> None:
    """One untimed `ask` in the chat: the PDF is uploaded and the uploads kept (not in a smoke
    run: its first measured run uploads instead)."""
    if sizes.prime:
        args = {"home": str(home), "env": env, "warm": True, "number": 0, "latency": sizes.latency_s}
        run_child("ask", args, 60, sizes)


def first_turn(root: Path, env: dict[str, str], repeats: int, sizes: Sizes) -> Row:
    key, what = "8.a", f"first All turn, {sizes.delay_s:.0f} s after start: Enter to reply"
    home = make_home(root, "firstturn")
    latency = sizes.latency_s
    args = {
        "home": str(home),
        "env": env,
        "delay": sizes.delay_s,
        "latency": latency,
        "turn_timeout": sizes.turn_timeout_s,
    }
    warm: list[dict] = []
    cold: list[dict] = []
    try:
        prime(home, env, sizes)
        for attempt in range(repeats):  # each question is numbered: its answer's marker is new on screen
            child_s = 2 * sizes.turn_timeout_s
            warm.append(run_child("first_turn", {**args, "warm": True, "number": 100 + 2 * attempt}, child_s, sizes))
            if sizes.baselines:
                cold.append(run_child("first_turn", {**args, "warm": False, "number": 101 + 2 * attempt}, child_s))
    except Exception as exc:
        return error_row(key, what, exc)
    over = statistics.median(run["over"] for run in warm)
    cold_over = median_of(cold, "over")
    return Row(
        key,
        what + " less the critical path",
        millis(over),
        f"no warm-up {millis(cold_over)}",
        ratio(over, cold_over),
        f"<= {FIRST_TURN_GOAL_S * 1000:.0f} ms",
        verdict(over <= FIRST_TURN_GOAL_S),
        f"waves {warm[0]['sizes']} x {latency} s = {warm[0]['critical']:.1f} s; Enter to the final reply on"
        f" screen, warm {listed(warm, 'total')} s; without the warm-up"
        f" {listed(cold, 'total')} s",
    )


def ask_calls(root: Path, env: dict[str, str], repeats: int, sizes: Sizes) -> Row:
    key, what = "8.b", "ask --mode all: first request to last answer"
    home = make_home(root, "askwarm")
    warm: list[dict] = []
    cold: list[dict] = []
    try:
        prime(home, env, sizes)
        for attempt in range(repeats):
            args = {"home": str(home), "env": env, "latency": sizes.latency_s}
            warm.append(run_child("ask", {**args, "warm": True, "number": 2 * attempt + 1}, 60, sizes))
            if sizes.baselines:
                cold.append(run_child("ask", {**args, "warm": False, "number": 2 * attempt + 2}, 60))
    except Exception as exc:
        return error_row(key, what, exc)
    calls = statistics.median(run["calls"] for run in warm)
    cold_calls = median_of(cold, "calls")
    critical = warm[0]["critical"]
    return Row(
        key,
        what,
        f"{calls:.3f} s",
        f"crit {critical:.2f} s; no warm-up {seconds(cold_calls)}",
        ratio(calls, critical),
        f"<= {ASK_GOAL}",
        verdict(calls / critical <= ASK_GOAL),
        f"waves {warm[0]['sizes']}; warm {listed(warm, 'calls')} s; without the"
        f" warm-up {listed(cold, 'calls')} s; the whole `ask` (workspace opened"
        f" to exit): warm {statistics.median(run['wall'] for run in warm):.3f} s, without"
        f" {seconds(median_of(cold, 'wall'))} (medians)",
    )


def run(root: Path, repeats: int, sizes: Sizes = FULL, shared_env: dict[str, str] | None = None) -> list[Row]:
    with simulator_env(sizes.latency_s, shared_env) as env:
        return [first_turn(root, env, repeats, sizes), ask_calls(root, env, repeats, sizes)]
