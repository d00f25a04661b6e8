"""Row 5: start-up, measured as a user sees it, in a pseudo-terminal.

`ensemble-tui --demo` and the baseline (a bare Textual app with seven tabs, bench/seven_tabs.py)
are started in a 120x40 pty; the clock runs from the spawn to the first bytes of the footer's
last key ("palette"): the first complete frame. (Textual's Footer adds its keys a few frames
after the first frame; ensemble-tui's footer has them in its first.) Each app is started
`Sizes.starts` times (bench/sizes.py), interleaved, and the fastest start of each is compared. Both apps are
stopped with Ctrl+Q (killed if they do not quit). `--demo` gets its own data folder
(XDG_DATA_HOME in the run's temporary directory), so the user's demo chats are never touched;
one untimed launch first seeds it. `--version` is timed against `python -c pass`, and a fresh
interpreter checks that it imports none of the provider SDKs.

The package is byte-compiled first (`compileall`), as `pip install` does: in a source checkout
with PYTHONDONTWRITEBYTECODE set, every start would otherwise compile ensemble-tui's modules
(~50 ms) while Textual's come compiled. 5.c reports the ratio to the bare app with pydantic and a
TextArea loaded (bench/seven_tabs.py): the part of start-up that is this app's own.
"""

from __future__ import annotations

import compileall
import fcntl
import json
import math
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from bench.sizes import FULL, Sizes
from bench.table import Row, error_row, ratio, seconds, verdict

FOOTER_MARK = b"palette"
ROWS, COLS = 40, 120
START_GOAL = 1.5
VERSION_GOAL_S = 0.3
SDK_MODULES = ("openai", "anthropic", "google.genai", "textual")


def first_frame_s(argv: list[str], env: dict[str, str], timeout_s: float = 30.0) -> float:
    """Seconds from spawning `argv` in a pty to the first frame's footer."""
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of ROWS x COLS, then the program
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        os.execvpe(argv[0], argv, env)
    output = b""
    shown: float | None = None
    try:
        while time.perf_counter() - started < timeout_s:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
            if FOOTER_MARK in output:
                shown = time.perf_counter() - started
                break
    finally:
        _stop(pid, fd)
    if shown is None:
        raise RuntimeError(f"{' '.join(argv[-2:])}: no frame within {timeout_s:.0f} s")
    return shown


def _stop(pid: int, fd: int) -> None:
    """Ctrl+Q, then wait (draining the terminal); kill the child if it does not quit."""
    try:
        os.write(fd, b"\x11")
    except OSError:
        pass
    deadline = time.perf_counter() + 10
    while time.perf_counter() < deadline:
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if select.select([fd], [], [], 0.05)[0]:
            try:
                os.read(fd, 65536)
            except OSError:
                pass
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)


def runs_text(runs: list[float]) -> str:
    return ", ".join(f"{value:.3f}" for value in runs)


def wall_s(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def cli_path() -> str:
    beside = Path(sys.executable).with_name("ensemble-tui")
    return str(beside) if beside.exists() else (shutil.which("ensemble-tui") or "ensemble-tui")


def sdk_imports_of_version(env: dict[str, str]) -> list[str]:
    """Which heavy modules `ensemble-tui --version` imports (should be none)."""
    code = (
        "import sys, json\nfrom ensemble_tui.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        f"print(json.dumps([m for m in {list(SDK_MODULES)!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(root: Path, repeats: int, sizes: Sizes = FULL) -> list[Row]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("ENSEMBLE_TUI", "TEXTUAL"))},
        "TERM": "xterm-256color",
        "XDG_DATA_HOME": str(root / "xdg-data"),
        "COLUMNS": str(COLS),
        "LINES": str(ROWS),
    }
    env.pop("ENSEMBLE_TUI_HOME", None)
    rows: list[Row] = []
    demo = [cli_path(), "--demo"]
    bare = [sys.executable, "-m", "bench.seven_tabs"]
    like = [*bare, "--with-libraries"]
    try:
        import ensemble_tui

        compileall.compile_dir(Path(ensemble_tui.__file__).parent, quiet=1)
        compileall.compile_dir(Path(__file__).parent, quiet=1)
        apps = (demo, bare, like) if sizes.baselines else (demo,)  # the smoke starts the app alone
        if sizes.seed_starts:
            for argv in apps:  # the first seeds the demo home; not timed
                first_frame_s(argv, env)
        starts: dict[int, list[float]] = {index: [] for index in range(3)}
        for _ in range(max(sizes.starts, repeats)):  # interleaved, so all see the same machine load
            for index, argv in enumerate(apps):
                starts[index].append(first_frame_s(argv, env))
        demo_runs, bare_runs, like_runs = starts[0], starts[1] or [math.nan], starts[2] or [math.nan]
        # The fastest start of each: a start is only ever slowed by what else the machine does
        # (timeit's reasoning), and the fastest are steady where medians are not (see Sizes.starts).
        demo_s, bare_s, like_s = min(demo_runs), min(bare_runs), min(like_runs)
        rows.append(
            Row(
                "5.a",
                "start-up: ensemble-tui --demo to first frame",
                seconds(demo_s),
                f"7 tabs {seconds(bare_s)}",
                ratio(demo_s, bare_s),
                f"<= {START_GOAL}",
                verdict(demo_s <= START_GOAL * bare_s),
                f"spawn in a 120x40 pty to the first frame's footer; fastest of {len(demo_runs)} interleaved "
                f"starts each (medians {statistics.median(demo_runs):.3f} vs {statistics.median(bare_runs):.3f} s): "
                + runs_text(demo_runs)
                + " vs "
                + runs_text(bare_runs)
                + " s",
            )
        )
        rows.append(
            Row(
                "5.c",
                "start-up against 7 tabs + pydantic + TextArea",
                seconds(demo_s),
                f"7 tabs+libs {seconds(like_s)}",
                ratio(demo_s, like_s),
                "-",
                "info",
                f"the baseline loads what the app cannot start without; fastest of {len(like_runs)} starts "
                f"(median {statistics.median(like_runs):.3f} s): " + runs_text(like_runs) + " s",
            )
        )
    except Exception as exc:
        rows.append(error_row("5.a", "start-up: ensemble-tui --demo to first frame", exc))
    try:
        runs = max(sizes.version_runs, repeats)
        version = statistics.median(wall_s([cli_path(), "--version"], env) for _ in range(runs))
        python = math.nan
        if sizes.baselines:
            python = statistics.median(wall_s([sys.executable, "-c", "pass"], env) for _ in range(runs))
        heavy = sdk_imports_of_version(env)
        rows.append(
            Row(
                "5.b",
                "start-up: ensemble-tui --version",
                seconds(version),
                f"python -c pass {seconds(python)}",
                ratio(version, python),
                f"<= {VERSION_GOAL_S} s",
                verdict(version <= VERSION_GOAL_S and not heavy),
                f"heavy modules imported: {', '.join(heavy) if heavy else 'none'} (of {', '.join(SDK_MODULES)})",
            )
        )
    except Exception as exc:
        rows.append(error_row("5.b", "start-up: ensemble-tui --version", exc))
    return rows
