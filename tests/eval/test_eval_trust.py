"""An eval you can trust (issue 33), end to end on the eval demo's simulator through the real
adapters: judges read the paper and the quote checks, reports cover exactly the arms asked for,
stored answers and verdicts are reused only where they still hold, the totals agree in every
output, and the estimate is asked about before anything is spent."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ensemble_tui.bootstrap import demo_paper
from ensemble_tui.simulator.eval_demo import DEMO_GRADED, EvalDemoSimulator
from ensemble_tui.simulator.script import RecordedRequest
from tests.eval.helpers import run_eval, stored
from tests.support import run_command

PROVIDERS = ("openai", "anthropic", "gemini")
JUDGE_MARK = "WINNER: TIE"  # a line of Prompts/JudgePrompt.txt's: the request is a judge's


@pytest.fixture
def simulators(monkeypatch: pytest.MonkeyPatch) -> list[EvalDemoSimulator]:
    """The eval demo's simulator of each command run in this process, kept as it stops."""
    kept: list[EvalDemoSimulator] = []
    stop = EvalDemoSimulator.stop

    def keep(self: EvalDemoSimulator) -> None:
        kept.append(self)
        stop(self)

    monkeypatch.setattr(EvalDemoSimulator, "stop", keep)
    return kept


def judge_requests(sim: EvalDemoSimulator) -> list[RecordedRequest]:
    return [call for name in PROVIDERS for call in sim.script(name).calls if JUDGE_MARK in call.text]


def paper_questions(folder: Path, *texts: str) -> Path:
    path = folder / "paper-questions.json"
    path.write_text(json.dumps([{"question": text, "pdf": str(demo_paper())} for text in texts]), encoding="utf-8")
    return path


def verdict_rows(home: Path) -> list[tuple[str, str, str]]:
    db = sqlite3.connect(home / "History.sqlite3")
    try:
        return [tuple(row) for row in db.execute("SELECT first, second, judge FROM eval_verdicts")]  # type: ignore[misc]
    finally:
        db.close()


def test_every_judge_request_carries_the_paper_and_the_quote_facts(
    tmp_path: Path, simulators: list[EvalDemoSimulator]
) -> None:
    questions = tmp_path / "q.json"
    entries = [
        {"question": "What does HERON-7 show about aggregation?", "pdf": str(demo_paper())},
        {"question": "No paper?"},
    ]
    questions.write_text(json.dumps(entries), encoding="utf-8")
    result = run_eval(tmp_path / "h", "--questions", str(questions), "--arms", "chatgpt,gemini", "--yes")
    assert result.returncode == 0, result.stderr
    requests = judge_requests(simulators[-1])
    # per question: ChatGPT against Gemini, both orders, by Claude (the only judge who wrote neither)
    with_paper = [r for r in requests if "HERON-7" in r.text]
    without = [r for r in requests if "No paper?" in r.text]
    assert len(with_paper) == 2 and len(without) == 2
    for request in with_paper:
        assert request.file_ids, "the judge got no paper"
        # ChatGPT's middling answer misquotes the paper on a HERON-7 question; Gemini's one quote is not in it
        assert re.search(r"Answer 1 quotes the paper (twice|once): ", request.text)
        assert re.search(r"Answer 2 quotes the paper (twice|once): ", request.text)
        assert '1 not found ("aggregation with one resynthesis round answered 92 correctly' in request.text
    assert any("1 found (p. 1)" in request.text for request in with_paper)
    for request in without:  # no paper: none is sent, and the judge is told so
        assert not request.file_ids and "There is no paper for this question" in request.text
        assert "quotes the paper" not in request.text


def test_papers_go_only_to_the_providers_the_eval_calls(tmp_path: Path, simulators: list[EvalDemoSimulator]) -> None:
    home = tmp_path / "h"
    chat = run_command(home, "ask", "--demo", "--mode", "claude", "What is the main result?")  # a chat with the paper
    assert chat.returncode == 0, chat.stderr
    questions = paper_questions(tmp_path, "What is the main result?")
    args = ("--questions", str(questions), "--arms", "chatgpt,claude", "--judges", "chatgpt,claude", "--yes")
    result = run_eval(home, *args)
    assert result.returncode == 0, result.stderr
    sim = simulators[-1]
    assert all(call.file_ids for name in ("openai", "anthropic") for call in sim.script(name).calls)
    assert sim.script("gemini").requests == []  # Gemini plays no part: it gets no paper, no call


def test_adding_an_arm_judges_exactly_the_new_pairs(tmp_path: Path, simulators: list[EvalDemoSimulator]) -> None:
    home = tmp_path / "h"
    questions = paper_questions(tmp_path, "What is the main result?")
    first = run_eval(home, "--questions", str(questions), "--arms", "chatgpt,claude,gemini", "--yes")
    assert first.returncode == 0, first.stderr
    before = set(verdict_rows(home))
    assert len(before) == 6  # three pairs, both orders, each by the one judge who wrote neither side
    second = run_eval(
        home, "--questions", str(questions), "--arms", "chatgpt,claude,gemini,council", "--yes", "--format", "json"
    )
    assert second.returncode == 0, second.stderr
    new = set(verdict_rows(home)) - before
    # council is the aggregator's (ChatGPT's) words: against ChatGPT, Claude and Gemini judge it;
    # against Claude, Gemini; against Gemini, Claude; each pair in both orders
    assert len(new) == 8 and all("council" in (first_arm, second_arm) for first_arm, second_arm, _ in new)
    assert len(judge_requests(simulators[-1])) == 8  # no judge was asked again for an old pair
    report = json.loads(second.stdout)
    council = next(row for row in report["arms"] if row["arm"] == "council")
    assert council["wins"] + council["ties"] + council["losses"] == 1
    assert "Answers reused from earlier runs: 3; asked by this run: 1." in second.stderr
    assert "0 to do" not in second.stderr and "estimated $0.00" not in second.stderr


def test_a_rerun_with_another_self_model_answers_self_k_again(tmp_path: Path) -> None:
    home = tmp_path / "h"
    questions = tmp_path / "q.txt"
    questions.write_text("Which assumption matters most?\n", encoding="utf-8")
    args = ("--questions", str(questions), "--arms", "chatgpt,self-2", "--yes")
    assert run_eval(home, *args, "--self-model", "claude").returncode == 0
    ((_, first),) = [(key, a) for key, a in stored(home)[0].items() if key[1] == "self-2"]
    assert first.writer == "Claude"
    again = run_eval(home, *args, "--self-model", "gemini")
    assert again.returncode == 0, again.stderr
    ((_, second),) = [(key, a) for key, a in stored(home)[0].items() if key[1] == "self-2"]
    assert second.writer == "Gemini" and second.contributors == ("Gemini",)
    assert "Answers reused from earlier runs: 1; asked by this run: 1." in again.stderr  # chatgpt's kept


def test_the_reports_arms_are_exactly_those_asked_for(tmp_path: Path) -> None:
    home = tmp_path / "h"
    questions = tmp_path / "q.txt"
    questions.write_text("What is the main result?\n", encoding="utf-8")
    assert run_eval(home, "--questions", str(questions), "--arms", "chatgpt,claude,gemini,all", "--yes").returncode == 0
    narrower = run_eval(home, "--questions", str(questions), "--arms", "chatgpt,claude", "--format", "json", "--yes")
    assert narrower.returncode == 0, narrower.stderr
    report = json.loads(narrower.stdout)
    assert [row["arm"] for row in report["arms"]] == ["chatgpt", "claude"]
    assert {v["first"] for v in report["verdicts"]} | {v["second"] for v in report["verdicts"]} == {"chatgpt", "claude"}


def test_only_the_judges_asked_for_count(tmp_path: Path) -> None:
    home = tmp_path / "h"
    questions = tmp_path / "q.txt"
    questions.write_text("What is the main result?\n", encoding="utf-8")
    assert run_eval(home, "--questions", str(questions), "--arms", "chatgpt,gemini", "--yes").returncode == 0
    only = run_eval(home, "--questions", str(questions), "--arms", "chatgpt,gemini", "--judges", "gemini", "--yes")
    assert only.returncode == 0, only.stderr
    # Claude's stored verdicts do not count, and Gemini wrote a side: no verdict at all
    assert "Claude" not in only.stdout.split("## How it was judged")[0].replace("Claude alone", "")
    assert "not judged" in only.stdout and "lost their verdicts" not in only.stdout


MONEY = r"\$([0-9.]+)"


def figures(text: str) -> tuple[str, str]:
    """The two totals, as written: spent by this run, spent by this eval in all."""
    run = re.search(rf"Spent by this run: {MONEY}", text)
    total = re.search(rf"Spent by this eval in all \(every run on these questions\): {MONEY}", text)
    assert run and total, text
    return run.group(1), total.group(1)


def test_the_totals_agree_in_md_json_html_and_stderr_and_add_up(tmp_path: Path) -> None:
    home = tmp_path / "h"
    questions = tmp_path / "q.txt"
    questions.write_text("What is the main result?\nWhich assumption matters most?\n", encoding="utf-8")
    runs = []
    for arms, fmt in (
        ("chatgpt,claude", "md"),
        ("chatgpt,claude,gemini", "json"),
        ("chatgpt,claude,gemini,all", "html"),
    ):
        report = tmp_path / f"report.{fmt}"
        result = run_eval(
            home, "--questions", str(questions), "--arms", arms, "--format", fmt, "-o", str(report), "--yes"
        )
        assert result.returncode == 0, result.stderr
        text = report.read_text(encoding="utf-8")
        if fmt == "json":
            spending = json.loads(text)["spending"]
            text = "\n".join(spending["lines"])
            assert f"{spending['spent_by_this_run_usd']:.2f}" == f"{float(figures(text)[0]):.2f}"
        assert figures(text) == figures(result.stderr), fmt
        runs.append(tuple(float(value) for value in figures(text)))
    # each run spent something, and the eval's total is what its runs spent, to the cent
    assert all(run > 0 for run, _ in runs)
    assert runs[-1][1] == pytest.approx(sum(run for run, _ in runs), abs=0.015)
    assert runs[-1][1] == pytest.approx(stored(home)[1], abs=0.006)


def test_adding_arms_without_a_terminal_or_yes_spends_nothing(tmp_path: Path) -> None:
    home = tmp_path / "h"
    questions = tmp_path / "q.txt"
    questions.write_text("What is the main result?\n", encoding="utf-8")
    assert run_eval(home, "--questions", str(questions), "--arms", "chatgpt,claude", "--yes").returncode == 0
    answers, spent = stored(home)
    refused = run_eval(home, "--questions", str(questions), "--arms", "chatgpt,claude,council")
    assert refused.returncode == 2 and "pass --yes" in refused.stderr
    assert "1 answer to ask" in refused.stderr  # the estimate counts what is left, and says on what basis
    assert stored(home) == (answers, spent)
    done = run_eval(home, "--questions", str(questions), "--arms", "chatgpt,claude")  # nothing left: nothing to ask
    assert done.returncode == 0, done.stderr


def wilson(successes: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def test_the_demo_graded_set_prints_accuracy_and_precision_and_the_estimate_holds(tmp_path: Path) -> None:
    home = tmp_path / "h"
    args = ("--questions", str(DEMO_GRADED), "--arms", "chatgpt,claude,gemini,all", "--yes")
    result = run_eval(home, *args, "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    rows = {row["arm"]: row for row in report["accuracy"]}
    assert report["recommendation"] is None and report["arms"][0]["win_rate"] is None  # no pair was to judge
    assert set(rows) == {"chatgpt", "claude", "gemini", "all"}
    assert (rows["claude"]["correct"], rows["claude"]["graded"]) == (8, 8) and rows["claude"]["precision"] == 1.0
    assert rows["chatgpt"]["partly_correct"] == 8 and rows["chatgpt"]["accuracy"] == 0.0
    gemini = rows["gemini"]  # declines where it can, errs on the HERON-7 questions
    assert gemini["declined"] == 6 and gemini["incorrect"] == 2 and gemini["precision"] == 0.0
    for row in rows.values():
        low, high = wilson(row["correct"], row["graded"])
        assert row["interval_95"] == pytest.approx([low, high], abs=1e-9)
    assert rows["claude"]["usd_per_correct_answer"] > 0 and rows["chatgpt"]["usd_per_correct_answer"] is None
    estimate = float(re.search(rf"Estimated before this run: {MONEY}", result.stderr).group(1))  # type: ignore[union-attr]
    spent = float(figures(result.stderr)[0])
    assert 0.5 <= spent / estimate <= 2.0, (estimate, spent)
    markdown = run_eval(home, *args)  # resumed: nothing asked again, the same tables in Markdown
    assert markdown.returncode == 0
    assert "| Accuracy (95% interval) | Precision | $ / correct answer |" in markdown.stdout
    assert "| Claude alone | 8 | 0 | 0 | 0 | 100% (68%–100%) | 100% |" in markdown.stdout
    assert "Spent by this run: $0.000" in markdown.stderr


def test_both_tables_print_when_both_kinds_of_question_are_present(tmp_path: Path) -> None:
    questions = tmp_path / "mixed.jsonl"
    lines = [
        {"question": "What is the main result?"},
        {"question": "At most how many aggregation passes?", "answer": "Five.", "pdf": str(demo_paper())},
    ]
    questions.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    result = run_eval(tmp_path / "h", "--questions", str(questions), "--arms", "chatgpt,claude,all", "--yes")
    assert result.returncode == 0, result.stderr
    assert "## Accuracy against the known answers (1 question)" in result.stdout
    assert "## Against Claude alone" in result.stdout
    assert "First-position rate: the judges chose the answer shown first in 50%" in result.stdout
    assert "Flipped verdicts: 0 of" in result.stdout


@pytest.mark.parametrize("budget", ["nan", "inf"])
def test_a_budget_that_is_no_amount_is_one_line(tmp_path: Path, budget: str) -> None:
    questions = tmp_path / "q.txt"
    questions.write_text("Q?\n", encoding="utf-8")
    result = run_eval(tmp_path / "h", "--questions", str(questions), "--budget", budget, "--yes")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert [line for line in result.stderr.splitlines() if line.strip()] == [
        line for line in result.stderr.splitlines() if "--budget must be an amount of dollars" in line
    ]


def test_a_full_disk_is_one_line_and_keeps_what_was_done(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ensemble_tui.eval.store import EvalStore

    def full(self: EvalStore, answer: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(EvalStore, "save_answer", full)
    questions = tmp_path / "q.txt"
    questions.write_text("Q?\n", encoding="utf-8")
    result = run_eval(tmp_path / "h", "--questions", str(questions), "--arms", "chatgpt", "--yes")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if "cannot be written" in line]
    assert len(lines) == 1 and "the disk is full" in lines[0]


def _read_only_mounts() -> bool:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _read_only_mounts(), reason="needs root and mount namespaces for a read-only bind mount")
def test_a_read_only_home_is_one_line(tmp_path: Path) -> None:
    home = tmp_path / "h"
    questions = tmp_path / "q.txt"
    questions.write_text("Q?\n", encoding="utf-8")
    assert run_eval(home, "--questions", str(questions), "--arms", "chatgpt,claude", "--yes").returncode == 0
    args = ("--questions", str(questions), "--arms", "chatgpt,claude,gemini", "--yes")
    # a process of its own in which the home is bound read-only (forked with the SDKs imported)
    result = run_command(home, "eval", "--demo", *args, forked=True, read_only=home, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "read-only" in lines[0], result.stderr


def test_a_budget_stop_reports_the_figures_stderr_gives(tmp_path: Path) -> None:
    questions = tmp_path / "q.txt"
    questions.write_text("".join(f"Question {n}?\n" for n in range(4)), encoding="utf-8")
    report = tmp_path / "report.md"
    args = ("--questions", str(questions), "--arms", "chatgpt,all", "--budget", "0.3", "-o", str(report), "--yes")
    result = run_eval(tmp_path / "h", *args)
    assert result.returncode == 1 and "Budget stop" in result.stderr
    assert figures(report.read_text(encoding="utf-8")) == figures(result.stderr)
    assert float(figures(result.stderr)[1]) <= 0.3
