"""The bench cannot break silently: every row family runs once, at its smallest size
(bench/sizes.py SMOKE: 50 ms calls, chats of two turns, one start each), and no row may end in
an error. Timing is not judged here (bench/README.md has the goals); rows 8.a and 8.b errored
for a round (a changed `attach_providers`) because nothing ran them."""

from __future__ import annotations

import pytest

from bench.run import ALL_ROWS, run_rows
from bench.sizes import SMOKE


@pytest.mark.parametrize("family", ALL_ROWS)
def test_every_row_of_the_family_runs(family: str) -> None:
    rows = run_rows({family}, repeats=1, naive_timeout_s=30.0, sizes=SMOKE)
    assert rows, f"row family {family} gave no row"
    assert all(row.key.startswith(family) for row in rows)
    errors = [f"{row.key} {row.what}: {row.note}" for row in rows if row.result == "error"]
    assert not errors, "\n".join(errors)
