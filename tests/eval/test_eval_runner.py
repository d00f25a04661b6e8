"""The eval's runner, through the command on the demo simulator (the real SDKs on loopback):
shared proposals, the budget cap, the refusal to spend unasked, and the judging seam."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ensemble_tui.commands import eval as eval_command
from ensemble_tui.eval.model import ArmAnswer, EvalQuestion, Verdict
from tests.eval.helpers import questions_file, run_eval, stored


def by_arm(answers: dict[tuple[str, str], ArmAnswer]) -> dict[str, ArmAnswer]:
    return {arm: answer for (_, arm), answer in answers.items()}


def test_council_and_vote_reuse_the_aggregate_proposals_and_make_no_proposer_call(tmp_path: Path) -> None:
    shared_home, alone_home = tmp_path / "shared", tmp_path / "alone"
    questions = questions_file(tmp_path, 1)
    result = run_eval(shared_home, "--questions", str(questions), "--arms", "all,council,vote", "--yes")
    assert result.returncode == 0, result.stderr
    alone = run_eval(alone_home, "--questions", str(questions), "--arms", "council", "--yes")
    assert alone.returncode == 0, alone.stderr
    shared = by_arm(stored(shared_home)[0])
    council_alone = by_arm(stored(alone_home)[0])["council"]
    assert shared["all"].shared_from is None and shared["all"].calls_saved == 0
    for arm in ("council", "vote"):
        assert shared[arm].shared_from == "all" and shared[arm].calls_saved == 3, arm
    # Alone, the council asks its three proposers; sharing, only its rankings and its chair's reply.
    assert council_alone.calls == 3 + 3 + 1 and shared["council"].calls == 3 + 1
    assert shared["vote"].calls == 3  # the three critiques, nothing else
    assert "Demo quality: 5 of 5" in shared["council"].text  # the chair read every proposal
    assert set(shared["council"].contributors) == {"ChatGPT", "Claude", "Gemini"}


def test_self_k_samples_one_model_k_times_and_aggregates_with_it(tmp_path: Path) -> None:
    questions = questions_file(tmp_path, 1)
    result = run_eval(
        tmp_path / "h", "--questions", str(questions), "--arms", "self-3", "--self-model", "claude", "--yes"
    )
    assert result.returncode == 0, result.stderr
    answer = by_arm(stored(tmp_path / "h")[0])["self-3"]
    assert answer.writer == "Claude" and answer.contributors == ("Claude",)
    # 3 samples and a pass; the demo's aggregator asks for one revision round: 3 more and a pass.
    assert answer.calls == 8 and "Demo quality: 5 of 5" in answer.text


def test_the_budget_is_a_hard_cap_and_the_eval_stops_with_what_it_has(tmp_path: Path) -> None:
    questions = questions_file(tmp_path, 6)
    result = run_eval(
        tmp_path / "h", "--questions", str(questions), "--arms", "chatgpt,all", "--budget", "0.5", "--yes"
    )
    assert result.returncode == 1
    assert "Budget stop" in result.stderr and "raise --budget" in result.stderr
    answers, spent = stored(tmp_path / "h")
    assert spent <= 0.5  # every reservation, at what was billed or its worst case
    assert 0 < len(answers) < 12


def test_without_a_terminal_or_yes_it_refuses_before_spending(tmp_path: Path) -> None:
    questions = questions_file(tmp_path, 2)
    result = run_eval(tmp_path / "h", "--questions", str(questions))
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if "--yes" in line]
    assert len(lines) == 1 and "estimated" in result.stderr
    answers, spent = stored(tmp_path / "h")
    assert answers == {} and spent == 0


def test_an_unknown_arm_is_one_line(tmp_path: Path) -> None:
    result = run_eval(
        tmp_path / "h", "--questions", str(questions_file(tmp_path, 1)), "--arms", "chatgpt,grok", "--yes"
    )
    assert result.returncode == 2 and "Unknown arm 'grok'" in result.stderr
    assert "Traceback" not in result.stderr


def test_auto_is_an_arm_that_answers_an_agreeing_question_in_two_calls_and_its_map(tmp_path: Path) -> None:
    result = run_eval(
        tmp_path / "h", "--questions", str(questions_file(tmp_path, 1)), "--arms", "chatgpt,auto", "--yes"
    )
    assert result.returncode == 0, result.stderr
    answers = by_arm(stored(tmp_path / "h")[0])
    auto = answers["auto"]
    assert auto.failed is None and auto.text
    assert auto.calls == 3  # the cheapest strong model (ChatGPT) twice, and the claim map on the two
    assert auto.writer == "ChatGPT" and auto.cost_usd < 3 * answers["chatgpt"].cost_usd


def test_the_judges_get_the_answers_the_single_models_and_a_call_without_the_pdf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = []

    async def judge_question(
        question: EvalQuestion, answers, baseline_arms, judges, call, *, done, keep
    ) -> list[Verdict]:  # type: ignore[no-untyped-def]
        if ("all", "claude", "Gemini") in done:  # asked by an earlier run: never asked again
            return []
        text, cost = await call(
            "Claude", "You judge.", "Answer 1\n\nDemo quality: 4 of 5\n\nAnswer 2\n\nDemo quality: 3 of 5"
        )
        seen.append((question.id, tuple(sorted(answers)), tuple(baseline_arms), tuple(judges)))
        assert text.endswith("WINNER: 1") and cost > 0
        verdict = Verdict(
            question_id=question.id,
            first="all",
            second="claude",
            judge="Gemini",
            winner="first",
            cost_usd=cost,
            keys=(answers["all"].key, answers["claude"].key),
        )
        keep(verdict)
        return [verdict]

    monkeypatch.setattr(eval_command, "judge_function", lambda workspace: judge_question)
    questions = questions_file(tmp_path, 2)
    args = ("--questions", str(questions), "--arms", "claude,gemini,all,vote", "--judges", "claude,gemini", "--yes")
    assert run_eval(tmp_path / "h", *args).returncode == 0
    assert len(seen) == 2
    for _, arms, baselines, judges in seen:
        assert arms == ("all", "claude", "gemini", "vote")
        assert baselines == ("claude", "gemini") and judges == ("Claude", "Gemini")
    again = run_eval(tmp_path / "h", *args)  # everything done: nothing asked, nothing judged again
    assert again.returncode == 0 and len(seen) == 2


def test_auto_escalates_a_hard_question_and_pays_what_its_calls_were_billed(tmp_path: Path) -> None:
    from ensemble_tui.bootstrap import demo_paper

    questions = tmp_path / "hard.json"
    questions.write_text(json.dumps([{"question": "What does HERON-7 show?", "pdf": str(demo_paper())}]))
    result = run_eval(tmp_path / "h", "--questions", str(questions), "--arms", "all,auto", "--yes")
    assert result.returncode == 0, result.stderr
    answers = by_arm(stored(tmp_path / "h")[0])
    auto, all_ = answers["auto"], answers["all"]
    assert auto.failed is None and auto.calls > 3  # the pair misquoted the paper: the All turn ran on top
    # the pair, its map and the escalated turn's own map on top of a turn that reused one answer; the
    # last map is awaited and billed, not abandoned (an abandoned call counts at its worst case)
    assert auto.cost_usd < 1.5 * all_.cost_usd
