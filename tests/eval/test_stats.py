"""The eval's numbers: Wilson intervals, order swapping, one vote per question, the best single
model, and what each arm costs alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ensemble_tui.eval.model import Verdict
from ensemble_tui.eval.stats import pair_outcomes, question_results, questions_to_tell, summarize, wilson
from tests.eval.records import answer, both_orders, plan


@pytest.mark.parametrize(
    ("rate", "n", "low", "high"),
    [
        (0.8, 10, 0.490, 0.943),  # the brief's check
        (0.5, 10, 0.237, 0.763),
        (0.0, 10, 0.000, 0.278),  # z²/(n + z²): the interval is honest at 0/n
        (1.0, 10, 0.722, 1.000),
        (0.7, 100, 0.604, 0.781),
    ],
)
def test_wilson_interval_matches_known_values(rate, n, low, high):
    got = wilson(rate, n)
    assert got == pytest.approx((low, high), abs=5e-4)


def test_wilson_with_no_questions_knows_nothing():
    assert wilson(0.0, 0) == (0.0, 1.0)


def test_questions_to_tell_follows_the_interval():
    # 8/10: the interval [0.490, 0.943] still holds ½; one more question at that rate would not
    assert questions_to_tell(0.8) == 11
    assert questions_to_tell(0.7) == 25  # z² / (4 · 0.2²) = 24.01
    assert questions_to_tell(0.5) is None  # a dead heat never separates from ½


@given(st.floats(min_value=0.01, max_value=0.99).filter(lambda rate: abs(rate - 0.5) > 0.01))
def test_questions_to_tell_is_the_first_n_whose_interval_leaves_out_a_half(rate):
    n = questions_to_tell(rate)
    low, high = wilson(rate, n)
    assert not low <= 0.5 <= high
    if n > 1:
        low, high = wilson(rate, n - 1)
        assert low <= 0.5 <= high


def test_a_verdict_that_flips_with_the_order_is_a_tie():
    flipped = [
        Verdict(question_id="q0", first="council", second="claude", judge="Mistral", winner="first"),
        Verdict(question_id="q0", first="claude", second="council", judge="Mistral", winner="first"),
    ]
    (outcome,) = pair_outcomes(flipped, ["claude"])
    assert (outcome.arm, outcome.baseline, outcome.result) == ("council", "claude", "tie")


def test_a_win_in_both_orders_is_a_win_and_a_win_with_a_tie_is_a_tie():
    agreed = both_orders("q0", "council", "claude", "Mistral", "win")
    half = [
        Verdict(question_id="q1", first="council", second="claude", judge="Mistral", winner="first"),
        Verdict(question_id="q1", first="claude", second="council", judge="Mistral", winner="tie"),
    ]
    results = {outcome.question_id: outcome.result for outcome in pair_outcomes(agreed + half, ["claude"])}
    assert results == {"q0": "win", "q1": "tie"}


def test_one_order_alone_or_a_lost_verdict_gives_no_outcome():
    one_order = [Verdict(question_id="q0", first="council", second="claude", judge="Mistral", winner="first")]
    lost = [
        Verdict(question_id="q1", first="council", second="claude", judge="Mistral", winner="first"),
        Verdict(
            question_id="q1", first="claude", second="council", judge="Mistral", winner="tie", problem="unreadable"
        ),
    ]
    assert pair_outcomes(one_order + lost, ["claude"]) == []


def test_each_question_counts_once_whatever_the_number_of_judges():
    verdicts = [
        *both_orders("q0", "council", "claude", "Mistral", "win"),
        *both_orders("q0", "council", "claude", "Gemini", "loss"),  # split: the question is a tie
        *both_orders("q1", "council", "claude", "Mistral", "win"),
        *both_orders("q1", "council", "claude", "Gemini", "tie"),  # 1 and ½: a win
    ]
    outcomes = pair_outcomes(verdicts, ["claude"])
    assert question_results(outcomes, "council", "claude") == {"q0": "tie", "q1": "win"}
    assert question_results(outcomes, "claude", "council") == {"q0": "tie", "q1": "loss"}


def test_the_reference_is_the_single_model_that_wins_most_among_single_models():
    answers = [
        answer(f"q{i}", arm, cost_usd=cost) for i in range(3) for arm, cost in (("chatgpt", 0.01), ("claude", 0.02))
    ]
    verdicts = [verdict for i in range(3) for verdict in both_orders(f"q{i}", "claude", "chatgpt", "Mistral", "win")]
    summary = summarize(plan(("chatgpt", "claude"), ("Mistral",), 3), answers, verdicts)
    assert summary.best == "claude"
    assert summary.row("chatgpt").tally.losses == 3


def test_a_tie_between_single_models_goes_to_the_cheaper():
    answers = [
        answer(f"q{i}", arm, cost_usd=cost) for i in range(2) for arm, cost in (("chatgpt", 0.03), ("gemini", 0.01))
    ]
    verdicts = [verdict for i in range(2) for verdict in both_orders(f"q{i}", "gemini", "chatgpt", "Mistral", "tie")]
    assert summarize(plan(("chatgpt", "gemini"), ("Mistral",), 2), answers, verdicts).best == "gemini"


def test_an_arm_costs_what_it_would_alone_and_sharing_is_counted_once():
    answers = [
        answer("q0", "claude", cost_usd=0.01, calls=1, latency_s=2.0, quotes_checked=4, quotes_found=4),
        answer("q1", "claude", cost_usd=0.01, calls=1, latency_s=4.0, quotes_checked=0),
        answer("q0", "all", cost_usd=0.05, calls=4, latency_s=9.0, quotes_checked=3, quotes_found=2),
        answer("q1", "all", cost_usd=0.05, calls=4, latency_s=11.0, quotes_checked=1, quotes_found=0),
        answer("q0", "council", cost_usd=0.02, calls=4, calls_saved=3, shared_from="all", shared_cost_usd=0.03),
        answer("q1", "council", cost_usd=0.02, calls=4, calls_saved=3, shared_from="all", shared_cost_usd=0.03),
        answer("q0", "vote", failed="every critic failed"),
    ]
    summary = summarize(plan(("claude", "all", "council", "vote"), ("Mistral",), 2), answers, [])
    council, all_, claude, vote = (summary.row(arm) for arm in ("council", "all", "claude", "vote"))
    assert council.cost_per_question == pytest.approx(0.05)  # its own 0.02 and the proposals' 0.03
    assert council.calls_per_question == pytest.approx(7)
    assert all_.median_latency_s == pytest.approx(10.0)
    assert (claude.quote_rate, all_.quote_rate) == (1.0, 0.5)
    assert (vote.answered, vote.failed, vote.cost_per_question) == (0, 1, None)
    (shared,) = summary.sharing
    assert (shared.arm, shared.shared_from, shared.questions, shared.calls_saved) == ("council", "all", 2, 6)
    assert shared.dollars_saved == pytest.approx(0.06)
    assert summary.answers_cost == pytest.approx(0.16)  # the shared proposals counted once, in `all`


def test_a_pair_no_judge_may_read_is_counted_as_excluded_not_lost():
    answers = [
        answer("q0", "claude"),
        answer("q0", "chatgpt"),
        answer("q0", "council", writer="Claude", contributors=("ChatGPT", "Claude", "Gemini")),
    ]
    verdicts = both_orders("q0", "claude", "chatgpt", "Gemini", "win")
    summary = summarize(plan(("chatgpt", "claude", "council"), ("Claude",), 1), answers, verdicts)
    council = summary.row("council")  # Claude wrote council's reply and Claude alone: no judge is left
    assert (council.excluded, council.lost, council.tally.questions) == (1, 0, 0)
