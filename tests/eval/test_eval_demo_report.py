"""`eval --demo` end to end: the demo's answers have known quality, so the report's numbers are known."""

from __future__ import annotations

import json
from pathlib import Path

from tests.eval.helpers import run_eval


def test_the_demo_report_names_claude_the_best_single_model_and_the_ensembles_win_every_question(
    tmp_path: Path,
) -> None:
    home = tmp_path / "h"
    args = ("--from-history", "2", "--arms", "chatgpt,claude,all,council", "--yes")
    result = run_eval(home, *args, "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["reference"] == "claude"  # Claude's demo answers are the best of the single models
    arms = {row["arm"]: row for row in report["arms"]}
    assert (arms["all"]["wins"], arms["all"]["ties"], arms["all"]["losses"]) == (2, 0, 0)
    assert (arms["chatgpt"]["wins"], arms["chatgpt"]["losses"]) == (0, 2)
    low, high = arms["all"]["interval_95"]
    assert round(low, 3) == 0.342 and high == 1.0  # Wilson, 2 of 2
    assert "too few questions to tell" in report["recommendation"]["headline"] + " ".join(
        report["recommendation"]["findings"]
    )
    (shared,) = report["sharing"]  # council read the proposals all asked for: 3 calls and their cost saved a question
    assert (shared["arm"], shared["shared_from"], shared["calls_saved"]) == ("council", "all", 6)
    assert shared["dollars_saved"] > 0
    assert arms["council"]["cost_per_question_usd"] > arms["all"]["cost_per_question_usd"] / 2  # as if run alone
    judged = {(v["first"], v["second"]) for v in report["verdicts"]}
    assert ("all", "claude") in judged and ("claude", "all") in judged  # both orders
    assert all(v["judge"] != "Claude" for v in report["verdicts"] if "claude" in (v["first"], v["second"]))

    html = run_eval(home, *args, "--format", "html")  # resumed: nothing asked again, same numbers
    assert html.returncode == 0 and "<svg" in html.stdout
    assert "http" not in html.stdout.replace('xmlns="http://www.w3.org/2000/svg"', "") and "<script" not in html.stdout
