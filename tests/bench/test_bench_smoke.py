"""The bench cannot break silently: `python -m bench --smoke` runs every row family once, at its
smallest size (bench/sizes.py SMOKE), and fails if a family gives no row or a row ends in an
error. Timing is not judged here (bench/README.md has the goals); rows 8.a and 8.b errored for
a round (a changed `attach_providers`) because nothing ran them.

One run in a process of its own: its tasks share that process (the SDKs' imports, 2-6 s of CPU,
are paid once) and its simulator, and the app tasks' process-wide settings (the collector, the
log handlers) stay out of the suite's workers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.run import ALL_ROWS

ROOT = Path(__file__).resolve().parents[2]


def test_every_row_family_runs_without_an_error() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", "--rows", ",".join(ALL_ROWS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = completed.stdout + completed.stderr[-3000:]
    assert completed.returncode == 0, output
    for family in ALL_ROWS:
        assert f"\n{family}." in completed.stdout, f"row family {family} is missing:\n{output}"
