"""`python -m bench`: run every benchmark row of issue 7 and print one table.

Each row family lives in its own module; this one picks the rows, makes the temporary folder
they share (deleted at the end), and prints the machine the figures come from.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from bench import library_rows, quote_rows, startup_rows, turn_rows, ui_rows, upload_rows, warm_rows
from bench.sizes import FULL, SMOKE, Sizes
from bench.table import Row, render

ALL_ROWS = ("1", "2", "3", "4", "5", "6", "7", "8", "9")


def machine() -> str:
    """nproc, CPU model and Python version: the figures mean little without them."""
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (
        f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--rows", default=",".join(ALL_ROWS), help="rows to run, e.g. 1,3 (default: all)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement; medians are reported")
    parser.add_argument(
        "--naive-timeout",
        type=float,
        default=120.0,
        help="seconds the naive Markdown-per-message baseline of row 2 may take before it is stopped",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="every row once at its smallest size (bench/sizes.py), to check that the rows run; figures meaningless",
    )
    return parser.parse_args(argv)


def run_rows(wanted: set[str], repeats: int, naive_timeout_s: float, sizes: Sizes = FULL) -> list[Row]:
    """The rows of the families in `wanted`, in a temporary folder deleted at the end. With
    `sizes.one_process` (the smoke run) the families share one simulator, in this process."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="ensemble-bench-") as tmp, ExitStack() as stack:
        root = Path(tmp)
        shared: dict[str, str] | None = None
        if sizes.one_process and wanted & {"1", "2", "3", "4", "8"}:
            from bench.simproc import BenchSimulator

            shared = stack.enter_context(BenchSimulator(sizes.latency_s)).env
        families: list[tuple[str, Callable[[], list[Row]]]] = [
            ("1", lambda: turn_rows.run(root, repeats, sizes, shared)),
            ("2,3,4", lambda: ui_rows.run(root, wanted, repeats, naive_timeout_s, sizes, shared)),
            ("5", lambda: startup_rows.run(root, repeats, sizes)),
            ("6", lambda: upload_rows.run(root, sizes)),
            ("7", lambda: quote_rows.run(root, sizes)),
            ("8", lambda: warm_rows.run(root, repeats, sizes, shared)),
            ("9", lambda: library_rows.run(root, sizes)),
        ]
        for keys, run_family in families:
            if wanted & set(keys.split(",")):
                started, cpu = time.perf_counter(), time.process_time()
                rows += run_family()
                print(
                    f"rows {keys}: {time.perf_counter() - started:.1f} s wall, "
                    f"{time.process_time() - cpu:.1f} s CPU in this process",
                    file=sys.stderr,
                    flush=True,
                )
    return rows


def smoke_problems(rows: list[Row], wanted: set[str]) -> list[str]:
    """What makes a smoke run fail: a family that gave no row, and every row that errored.
    Timing is not judged (its figures mean nothing)."""
    problems = [
        f"row family {family} gave no row"
        for family in sorted(wanted)
        if not any(row.key.startswith(family) for row in rows)
    ]
    return problems + [f"{row.key} {row.what}: {row.note}" for row in rows if row.result == "error"]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    wanted = {row.strip() for row in args.rows.split(",") if row.strip()}
    started = time.perf_counter()
    print(f"ensemble-tui benchmarks (issue 7) on {machine()}", flush=True)
    if args.smoke:
        print("smoke run: every row once at its smallest size; the figures mean nothing", flush=True)
        rows = run_rows(wanted, 1, min(args.naive_timeout, 30.0), SMOKE)
    else:
        rows = run_rows(wanted, args.repeats, args.naive_timeout)
    print(render(rows))
    print(f"\n{len(rows)} rows in {time.perf_counter() - started:.0f} s", flush=True)
    problems = smoke_problems(rows, wanted) if args.smoke else []
    if problems:
        print("\nsmoke run failed:\n" + "\n".join(problems), flush=True)
    return 1 if problems else 0
