"""Rows 2, 3 and 4: the app with long chats, each measurement in a fresh child process
(bench/child.py) against the simulator process, the app opened as the CLI opens it (the smoke
run makes them in its own process: bench/sizes.py)."""

from __future__ import annotations

import compileall
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.homes import make_home
from bench.simproc import simulator_env
from bench.sizes import FULL, Sizes
from bench.table import Row, error_row, millis, ratio, seconds, verdict

OPEN_GOAL_S = 1.0
RSS_GOAL_MB = 250.0
MATH_GOAL = 1.10  # showing LaTeX as text may slow opening a math-heavy chat by 10 % at most (issue 16)
APPEND_GOAL_S = 0.100
FLAT_GOAL = 1.5
# Replies timed per size for each --repeats (Sizes.replies_per_repeat, 4): one reply's time
# depends on where it falls among the app's frames (a frame under way, or one just drawn, delays
# the next by up to ~30 ms), so a median needs a dozen of them to say anything about the chat's size.
LAG_GOAL_S = 0.050


def run_child(task: str, args: dict[str, Any], timeout_s: float, sizes: Sizes = FULL) -> dict[str, Any]:
    """Run one bench.child task; its last stdout line is the JSON result. With
    `sizes.one_process` (the smoke run) it runs here instead: one process pays the imports once."""
    if sizes.one_process:
        from bench.child import run_here

        return run_here(task, {**args, "timeout": timeout_s})
    completed = subprocess.run(
        [sys.executable, "-m", "bench.child", task, json.dumps({**args, "timeout": timeout_s})],
        capture_output=True,
        text=True,
        timeout=timeout_s + 60,
    )
    lines = completed.stdout.strip().splitlines()
    if completed.returncode != 0 or not lines:
        tail = completed.stderr.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"{task} child failed: {tail[0][:300]}")
    return json.loads(lines[-1])


def opening(root: Path, env: dict[str, str], repeats: int, naive_timeout_s: float, sizes: Sizes) -> list[Row]:
    """Row 2: open a 200-turn chat; the naive baseline is one Markdown widget per message."""
    turns = sizes.open_turns
    home = make_home(root, "open", turns)
    args = {"home": str(home), "turns": turns, "env": env}
    try:
        runs = [run_child("open", {**args, "app": "app"}, 60, sizes) for _ in range(repeats)]
    except Exception as exc:
        return [error_row("2.a", f"open a {turns}-turn chat: first complete frame", exc)]
    app_s = statistics.median(run["seconds"] for run in runs)
    app_mb = max(run["VmHWM"] for run in runs)
    naive_s, naive_mb, naive_text = math.nan, math.nan, "not run"
    try:
        if sizes.baselines:
            naive = run_child("open", {**args, "app": "naive"}, naive_timeout_s)
            naive_s, naive_mb, naive_text = naive["seconds"], naive["VmHWM"], seconds(naive["seconds"])
    except Exception:  # the naive app is allowed to be hopeless: report the bound
        naive_s, naive_mb, naive_text = math.nan, math.nan, f"> {naive_timeout_s:.0f} s"
    naive_label = (
        f"naive {naive_text}" if not math.isnan(naive_s) or not sizes.baselines else f"naive {naive_text} (stopped)"
    )
    return [
        Row(
            "2.a",
            f"open a {turns}-turn chat: first complete frame",
            seconds(app_s),
            naive_label,
            ratio(app_s, naive_s),
            f"<= {OPEN_GOAL_S} s",
            verdict(app_s <= OPEN_GOAL_S),
            "from Workspace.open to the first frame showing the newest reply's first line; median of "
            + ", ".join(f"{run['seconds']:.3f}" for run in runs)
            + " s",
        ),
        Row(
            "2.b",
            f"open a {turns}-turn chat: peak RSS",
            f"{app_mb:.0f} MB",
            f"naive {naive_mb:.0f} MB" if not math.isnan(naive_mb) else "naive n/a",
            ratio(app_mb, naive_mb),
            f"<= {RSS_GOAL_MB:.0f} MB",
            verdict(app_mb <= RSS_GOAL_MB),
            "VmHWM of the process at that frame (interpreter and imports included)",
        ),
    ]


def opening_math(root: Path, env: dict[str, str], repeats: int, sizes: Sizes) -> list[Row]:
    """Row 2.c: open a 200-turn chat whose every reply holds LaTeX, with math shown as text
    against the same chat shown raw; runs interleaved so the machine's load hits both alike.

    The package is byte-compiled first, as `pip install` leaves it (row 5 does the same): with
    PYTHONDONTWRITEBYTECODE set, a source checkout would compile the converter's modules from
    source in every math-as-text run (~6 ms, a quarter of the row's margin), a cost no installed
    copy has; the raw side's lazily imported modules are compiled alike."""
    import ensemble_tui

    if not sizes.one_process:  # the smoke's imports are made in its own process, compiled or not
        compileall.compile_dir(Path(ensemble_tui.__file__).parent, quiet=1)
    turns = sizes.open_turns
    home = make_home(root, "openmath", turns, math=True)
    args = {"home": str(home), "turns": turns, "env": env, "app": "app"}
    shown: list[float] = []
    raw: list[float] = []
    cpu: dict[bool, list[float]] = {True: [], False: []}
    try:
        sides = ((True, shown), (False, raw)) if sizes.baselines else ((True, shown),)
        for _ in range(max(repeats, sizes.math_runs)):
            for math_on, times in sides:
                run = run_child("open", {**args, "math": math_on}, 60, sizes)
                times.append(run["seconds"])
                cpu[math_on].append(run["cpu"])
    except Exception as exc:
        return [error_row("2.c", f"open a {turns}-turn math chat: math as text", exc)]
    shown_s, raw_s = statistics.median(shown), statistics.median(raw or [math.nan])
    shown_cpu, raw_cpu = statistics.median(cpu[True]), statistics.median(cpu[False] or [math.nan])
    return [
        Row(
            "2.c",
            f"open a {turns}-turn math chat: math as text",
            seconds(shown_s),
            f"LaTeX raw {seconds(raw_s)}",
            ratio(shown_s, raw_s),
            f"<= {MATH_GOAL}",
            verdict(shown_s <= MATH_GOAL * raw_s),
            "as 2.a, every reply with eight formulas (inline, display, a matrix, cases), none alike; "
            f"math as text {', '.join(f'{s:.3f}' for s in shown)} s; "
            f"raw {', '.join(f'{s:.3f}' for s in raw) or '-'} s; "
            f"the process's CPU time to that frame (moved less by a busy machine), medians: math as text "
            f"{shown_cpu:.3f} s, raw {raw_cpu:.3f} s, ratio {ratio(shown_cpu, raw_cpu)}",
        )
    ]


def spread(values: list[float]) -> str:
    """ "median 41 ms (33-70)": seconds shown in milliseconds."""
    return f"median {statistics.median(values) * 1000:.0f} ms ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"


def appending(root: Path, env: dict[str, str], repeats: int, sizes: Sizes) -> list[Row]:
    """Row 3: the app's share of adding a reply (Enter to the reply on screen, less the model
    call), the model answering at once, at 50, 200 and 1000 turns; baseline: the same in an
    empty chat. The model call itself (the adapter: the SDK building a request that carries the
    whole chat, loopback, the simulator) is reported beside it in 3.e: it grows with the chat
    because the model must read it, and it is row 1's subject."""
    costs: dict[int, float] = {}
    calls: dict[int, float] = {}
    details: dict[int, str] = {}
    missed: dict[int, int] = {}
    rows: list[Row] = []
    append_sizes = sizes.append_turns
    for turns in (0, *append_sizes) if sizes.baselines else append_sizes:
        home = make_home(root, f"append{turns}", turns, last_mode="chatgpt")
        try:
            args = {
                "home": str(home),
                "turns": turns,
                "env": env,
                "repeats": repeats * sizes.replies_per_repeat,
                "reply_timeout": sizes.reply_timeout_s,
            }
            # The child may wait for each of its replies (the untimed first one too) in turn, and
            # after a missed one for its turn to end (up to four timeouts more: bench/child.py).
            child_s = max(180.0, (args["repeats"] + 1) * sizes.reply_timeout_s * 5 + 60.0)
            result = run_child("append", args, child_s, sizes)
        except Exception as exc:
            rows.append(error_row(f"3.{turns}", f"add a reply at {turns} turns", exc))
            continue
        shown = [run for run in result["runs"] if not run.get("missed")]
        missed[turns] = len(result["runs"]) - len(shown)
        if not shown:
            rows.append(error_row(f"3.{turns}", f"add a reply at {turns} turns", RuntimeError("no reply shown")))
            continue
        costs[turns] = statistics.median(run["app"] for run in shown)
        calls[turns] = statistics.median(run["model"] for run in shown)
        warmup = result["warmup"]
        first = "never shown" if warmup.get("missed") else f"{warmup['total'] * 1000:.0f} ms"
        details[turns] = (
            f"{len(shown)} replies: the app's share {spread([run['app'] for run in shown])}"
            f" of Enter to reply on screen {spread([run['total'] for run in shown])}; the rest is the model"
            f" call (SDK request and reply, loopback, simulator) {spread([run['model'] for run in shown])}"
            f"; the first reply after opening (SDK import, PDF upload): {first}"
            + (f"; {missed[turns]} of {len(result['runs'])} replies' starts never shown" if missed[turns] else "")
        )
    base = costs.get(0, math.nan)
    for letter, turns in zip("abc", append_sizes, strict=False):
        if turns not in costs:
            continue
        rows.append(
            Row(
                f"3.{letter}",
                f"add a reply at {turns} turns: the app's share",
                millis(costs[turns]),
                f"empty chat {millis(base)}",
                ratio(costs[turns], base),
                f"<= {APPEND_GOAL_S * 1000:.0f} ms",
                verdict(costs[turns] <= APPEND_GOAL_S and not missed[turns]),
                details[turns],
            )
        )
    if append_sizes[0] in costs and append_sizes[-1] in costs:
        small, large = costs[append_sizes[0]], costs[append_sizes[-1]]
        rows.append(
            Row(
                "3.d",
                f"flat: reply at {append_sizes[-1]} vs {append_sizes[0]} turns",
                millis(large),
                millis(small),
                ratio(large, small),
                f"<= {FLAT_GOAL}",
                verdict(large / small <= FLAT_GOAL),
            )
        )
    if append_sizes[0] in calls and append_sizes[-1] in calls:
        small, large = calls[append_sizes[0]], calls[append_sizes[-1]]
        rows.append(
            Row(
                "3.e",
                f"the model call itself at {append_sizes[-1]} vs {append_sizes[0]} turns",
                millis(large),
                millis(small),
                ratio(large, small),
                "-",
                "info",
                "the request carries the whole chat (2 MB at 1000 turns), so its cost grows with it",
            )
        )
    return rows


def responsive(root: Path, env: dict[str, str], sizes: Sizes) -> list[Row]:
    """Row 4: lag and keypress-to-screen during an All turn of 50 KB proposals; baseline: idle."""
    home = make_home(root, "responsive", sizes.open_turns)
    args = {
        "home": str(home),
        "turns": sizes.open_turns,
        "env": env,
        "big": sizes.big_reply,
        "idle_s": sizes.idle_s,
        "later_turns": sizes.later_turns,
        "turn_timeout": sizes.turn_timeout_s,
    }
    try:
        result = run_child("responsive", args, (2 + sizes.later_turns) * sizes.turn_timeout_s, sizes)
    except Exception as exc:
        return [error_row("4.a", "responsiveness during an All turn", exc)]
    idle = result["idle"]
    rows = []
    for prefix, name, label in (
        ("4.a", "first", "1st All turn"),
        ("4.c", "second", f"All turns 2-{1 + sizes.later_turns}"),
    ):
        if name not in result:  # the smoke run types through one turn (Sizes.later_turns 0)
            continue
        busy = result[name]
        key_b = prefix[:2] + chr(ord(prefix[2]) + 1)
        answered = "" if busy["answered"] else " (no final reply seen)"
        rows += [
            Row(
                prefix,
                f"event-loop lag p99, {label}",
                millis(busy["lag_p99"]),
                f"idle {millis(idle['lag_p99'])}",
                ratio(busy["lag_p99"], idle["lag_p99"]),
                f"<= {LAG_GOAL_S * 1000:.0f} ms",
                verdict(busy["lag_p99"] <= LAG_GOAL_S),
                f"max {millis(busy['lag_max'])} over {busy['lag_samples']} samples; "
                f"turn {busy['turn_s']:.2f} s{answered}",
            ),
            Row(
                key_b,
                f"keypress-to-screen p99, {label}",
                millis(busy["key_p99"]),
                f"idle {millis(idle['key_p99'])}",
                ratio(busy["key_p99"], idle["key_p99"]),
                f"<= {LAG_GOAL_S * 1000:.0f} ms",
                verdict(busy["key_p99"] <= LAG_GOAL_S and busy["keys_missed"] == 0),
                f"median {millis(busy['key_median'])}, {busy['keys']} keys timed, "
                f"{busy['keys_missed']} not shown within 3 s",
            ),
        ]
    return rows


def run(
    root: Path,
    rows: set[str],
    repeats: int,
    naive_timeout_s: float,
    sizes: Sizes = FULL,
    shared_env: dict[str, str] | None = None,
) -> list[Row]:
    results: list[Row] = []
    with simulator_env(sizes.latency_s, shared_env) as env:
        if "2" in rows:
            results += opening(root, env, repeats, naive_timeout_s, sizes)
            results += opening_math(root, env, repeats, sizes)
        if "3" in rows:
            results += appending(root, env, repeats, sizes)
        if "4" in rows:
            results += responsive(root, env, sizes)
    return results
