"""core.compare: a run's proposals round by round, with their figures and places in the tally."""

from __future__ import annotations

from ensemble_tui.core.chat.runlog import Artifact, CallRecord, TurnRecord
from ensemble_tui.core.records.compare import compare_rounds
from ensemble_tui.core.records.report import report_markdown


def call(provider: str, role: str = "proposer", attempt: int = 1, latency: float = 1.0, cost: float = 0.001):
    return CallRecord(provider, f"{provider.lower()}-model", role, attempt, latency, "ok", cost_usd=cost)


def record(style: str, calls: list[CallRecord], artifacts: list[Artifact]) -> TurnRecord:
    return TurnRecord(session="s", mode="all", style=style, calls=calls, artifacts=artifacts)


def test_each_round_gets_its_own_answers_and_the_figures_of_the_calls_that_wrote_them():
    calls = [
        call("ChatGPT", latency=2.0, cost=0.002),
        call("ChatGPT", attempt=2, latency=3.0, cost=0.003),  # a retry of the same request
        call("Claude", latency=4.0),
        call("ChatGPT", "aggregator", latency=9.0),  # the aggregator's pass is not a proposal
        call("ChatGPT", latency=1.5, cost=0.0005),
        call("Claude", latency=2.5),
    ]
    artifacts = [
        Artifact("answer", "ChatGPT", "first A", round=1),
        Artifact("answer", "Claude", "first B", round=1),
        Artifact("resubmission", "", "please agree", round=1),
        Artifact("answer", "ChatGPT", "second A", round=2),
        Artifact("answer", "Claude", "second B", round=2),
    ]
    first, second = compare_rounds(record("aggregate", calls, artifacts))
    assert (first.title, second.title) == ("First proposals", "Resynthesis 1")
    assert [p.text for p in first.proposals] == ["first A", "first B"]
    chatgpt = first.proposals[0]
    assert (chatgpt.model, chatgpt.figures) == ("chatgpt-model", "5.00 s · $0.0050")
    assert second.proposals[0].figures == "1.50 s · $0.0005"
    assert second.proposals[1].latency_s == 2.5
    assert all(p.standing == "" for r in (first, second) for p in r.proposals)


def test_when_calls_cannot_be_matched_to_rounds_the_figures_cover_the_whole_run():
    calls = [call("ChatGPT"), call("ChatGPT"), call("ChatGPT")]  # a debate turn with a format repair
    artifacts = [
        Artifact("answer", "ChatGPT", "opening", round=1),
        Artifact("answer", "ChatGPT", "rebuttal", round=2),
    ]
    first, second = compare_rounds(record("debate", calls, artifacts))
    assert second.title == "Debate round 2"
    assert first.proposals[0].figures == second.proposals[0].figures == "3.00 s · $0.0030 (all rounds)"


def test_the_last_round_carries_the_medals_of_a_debate():
    artifacts = [
        Artifact("answer", "ChatGPT", "a", round=1),
        Artifact("answer", "Claude", "b", round=1),
        Artifact("answer", "ChatGPT", "a2", round=2),
        Artifact("answer", "Claude", "b2", round=2),
        Artifact(
            "vote",
            "",
            "",
            data={
                "standings": [
                    {"author": "Claude", "rank": 1, "points": 2.0},
                    {"author": "ChatGPT", "rank": 2, "points": 0.5},
                ],
                "medals": {"Claude": "gold", "ChatGPT": "silver"},
            },
        ),
    ]
    first, last = compare_rounds(record("debate", [], artifacts))
    standings = {p.author: p.standing for p in last.proposals}
    assert standings == {"Claude": "🥇 gold · 2 points", "ChatGPT": "🥈 silver · 0.5 points"}
    assert all(p.standing == "" for p in first.proposals)  # the tally ranks the final answers only
    assert last.proposals[0].model == "" and last.proposals[0].figures == "no calls recorded"


def test_a_council_shows_each_answers_place_and_average_position():
    artifacts = [
        Artifact("answer", "ChatGPT", "a", round=1),
        Artifact("answer", "Gemini", "c", round=1),
        Artifact(
            "vote",
            "",
            "",
            data={
                "positions": [
                    {"author": "Gemini", "average": 1.25, "ballots": 2},
                    {"author": "ChatGPT", "average": None, "ballots": 0},
                ]
            },
        ),
    ]
    (only,) = compare_rounds(record("council", [], artifacts))
    assert {p.author: p.standing for p in only.proposals} == {"Gemini": "place 1 · average 1.25", "ChatGPT": "place 2"}


def test_a_run_without_answers_has_nothing_to_compare():
    assert compare_rounds(record("aggregate", [call("ChatGPT")], [Artifact("final", "", "x")])) == []


def test_a_cancelled_run_is_marked_in_every_round():
    artifacts = [Artifact("answer", "ChatGPT", "first A", round=1), Artifact("answer", "Claude", "first B", round=1)]
    cancelled = record("aggregate", [call("ChatGPT"), call("Claude")], artifacts)
    cancelled.outcome = "cancelled"
    (only,) = compare_rounds(cancelled)
    assert only.mark == "cancelled"
    finished = record("aggregate", [call("ChatGPT"), call("Claude")], artifacts)
    finished.outcome = "final"
    assert compare_rounds(finished)[0].mark == ""


def test_council_ties_share_a_place():
    """Issue 35: three answers at average 1.50 were shown as places 1, 2 and 3."""
    positions = [{"author": name, "average": 1.5, "ballots": 2} for name in ("ChatGPT", "Claude", "Gemini")]
    artifacts = [Artifact("answer", p["author"], "x", round=1) for p in positions]
    artifacts.append(Artifact("vote", "", "", data={"positions": [*positions[:2], {**positions[2], "average": 2.0}]}))
    (only,) = compare_rounds(record("council", [], artifacts))
    assert [p.standing for p in only.proposals] == [
        "place 1 · average 1.50",
        "place 1 · average 1.50",
        "place 3 · average 2.00",
    ]
    assert "| 1 | Claude |" in report_markdown(record("council", [], artifacts))


def test_the_run_report_shows_each_debate_round_once():
    """Issue 35: the debate rounds appeared twice in the run report (as answers and as rounds)."""
    artifacts = [
        Artifact("answer", "ChatGPT", "first A", round=1),
        Artifact("answer", "ChatGPT", "debated A", round=2),
        Artifact("debate", "ChatGPT", "debated A", round=2, data={"agent": "A", "rationale": "", "messages": {}}),
    ]
    shown = report_markdown(record("debate", [], artifacts))
    assert shown.count("debated A") == 1 and "first A" in shown and "Debate rounds" in shown
