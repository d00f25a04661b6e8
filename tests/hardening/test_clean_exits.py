"""Clean exits (issue 24 §7): short `ask` runs, two at a time on one home with one PDF (so
they upload, reuse and replace each other's copies), each exit 0 with nothing on stderr after
the reply's lines: no crash at interpreter shutdown, no task outliving the command.

`ASK_RUNS` sets how many (6 in the suite, three pairs: each process costs 2-3 s of CPU, most of
it importing the SDK; the report's figure is 200)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.hardening.test_saved_means_saved import REPO, ensemble

RUNS = int(os.environ.get("ASK_RUNS", "6"))
AT_ONCE = 2
NEW_CHAT_EVERY = 50
BUDGET_S = 45.0 * RUNS  # wall time for all of them: generous, for a two-core machine shared with others


def _check(run: subprocess.CompletedProcess[str]) -> str | None:
    """Why a run is not clean, or None."""
    if run.returncode != 0:
        return f"exit {run.returncode}: {run.stderr[-500:]}"
    lines = run.stderr.splitlines()
    replied = [index for index, line in enumerate(lines) if line.startswith("reply by: ")]
    if not replied:
        return f"no reply line: {run.stderr[-500:]}"
    # the reply's own lines follow it: a mark per checked quote, the claim map's summary (and,
    # for a map drawn after the reply, the line saying it is awaited and the turn's cost once it is)
    reply_lines = ("quote ", "claims: ", "this turn ")
    after = [line for line in lines[replied[-1] + 1 :] if line.strip() and not line.startswith(reply_lines)]
    if after:
        return f"stderr after the reply: {after}"
    if "Traceback" in run.stderr or "never retrieved" in run.stderr:
        return f"a traceback: {run.stderr[-500:]}"
    return None


def test_short_ask_runs_all_exit_cleanly(home: Path, tmp_path: Path) -> None:
    pdf = tmp_path / "paper.pdf"
    shutil.copyfile(REPO / "tests" / "data" / "sample.pdf", pdf)
    started = time.monotonic()
    problems: list[str] = []
    done = 0
    while done < RUNS:
        # a new chat every NEW_CHAT_EVERY runs: one chat's $5 budget, a hard cap, stops it after ~130
        new = done > 0 and done % NEW_CHAT_EVERY == 0
        runs = _in_parallel(home, pdf, [f"Q{done + n}" for n in range(min(AT_ONCE, RUNS - done))], new)
        problems += [f"run {done + n}: {why}" for n, run in enumerate(runs) if (why := _check(run))]
        done += len(runs)
        assert time.monotonic() - started < BUDGET_S, f"{done} runs took over {BUDGET_S:.0f} s"
    assert not problems, "\n".join(problems)


def _in_parallel(home: Path, pdf: Path, questions: list[str], new: bool) -> list[subprocess.CompletedProcess[str]]:
    with ThreadPoolExecutor(len(questions)) as pool:
        futures = [
            pool.submit(
                ensemble, home, "ask", "--demo", "--mode", "chatgpt", "--pdf", str(pdf), *(["--new"] if new else []), q
            )
            for q in questions
        ]
        return [future.result() for future in futures]
