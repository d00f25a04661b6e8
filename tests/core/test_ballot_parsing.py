"""Parsing rankings, critiques and debate replies: the variations models really produce."""

from __future__ import annotations

import json
import random

import pytest

from ensemble_tui.core.turn.styles.critique import CritiqueParseError, parse_critique
from ensemble_tui.core.turn.styles.debate_reply import DebateFormatError, parse_debate_reply
from ensemble_tui.core.turn.styles.labels import shuffled_labelling
from ensemble_tui.core.turn.styles.ranking import RankingParseError, average_positions, parse_final_ranking

LABELS = ("A", "B", "C")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A is weak, B is best.\n\nFINAL RANKING:\n1. Response B\n2. Response C\n3. Response A", ["B", "C", "A"]),
        ("**FINAL RANKING:**\n1) **C** - best\n2) A\n3) B\n\nThanks for reading.", ["C", "A", "B"]),
        ("FINAL RANKING: C > A > B", ["C", "A", "B"]),
        ("Final ranking\n- B\n- A\n- C", ["B", "A", "C"]),
        ("### Final Ranking\n\n1. Answer C is the most thorough\n2. Answer A\n3. Answer B", ["C", "A", "B"]),
        ("FINAL RANKING:\nI weigh correctness most.\n1. A\n2. B\n3. C", ["A", "B", "C"]),
        ("FINAL RANKING: draft B, A, C\nFINAL RANKING:\n1. C\n2. B\n3. A", ["C", "B", "A"]),
    ],
    ids=["numbered", "bold", "inline-arrows", "bullets", "heading-and-prose", "preamble", "last-header-wins"],
)
def test_rankings_in_reasonable_variations(text: str, expected: list[str]) -> None:
    assert parse_final_ranking(text, LABELS) == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("FINAL RANKING:\n1. A\n2. A\n3. B", "twice"),
        ("FINAL RANKING:\n1. A\n2. D\n3. B", "unknown label D"),
        ("FINAL RANKING:\n1. A\n2. B", "C not ranked"),
        ("Answer B beats A and C.", "no FINAL RANKING"),
    ],
)
def test_bad_rankings_are_rejected(text: str, problem: str) -> None:
    with pytest.raises(RankingParseError, match=problem):
        parse_final_ranking(text, LABELS)


def test_labels_in_the_critique_text_are_never_taken() -> None:
    text = "1. A is great\n2. B\n3. C\n\nFINAL RANKING:\n1. C"
    with pytest.raises(RankingParseError, match="A not ranked"):
        parse_final_ranking(text, LABELS)


def test_average_positions_count_ballots() -> None:
    ballots = [["x", "y"], ["y", "x"], ["x", "z"], ["x"]]
    result = average_positions(ballots, ["x", "y", "z"])
    assert [(r.author, r.average, r.ballots) for r in result] == [("x", 1.25, 4), ("y", 1.5, 2), ("z", 2.0, 1)]


def test_each_reader_gets_its_own_shuffle_without_its_own_answer() -> None:
    rng = random.Random(5)
    authors = ["ChatGPT", "Claude", "Gemini", "Other"]
    seen_orders = set()
    for _ in range(20):
        labelling = shuffled_labelling(authors, rng, exclude="Claude")
        assert "Claude" not in labelling.by_label.values()
        assert labelling.labels == ("A", "B", "C")
        seen_orders.add(tuple(labelling.by_label.values()))
    assert len(seen_orders) > 1


def critique_json(labels: list[str], ranking: list[str] | None = None, **overrides: object) -> str:
    body = {
        "critiques": [
            {
                "label": label,
                "critique": f"about {label}",
                "correctness": 7,
                "completeness": 6,
                "clarity": 8,
                "helpfulness": 7,
                "safety": 10,
                "overall": 7,
            }
            for label in labels
        ],
        "ranking": ranking or labels,
        "confidence": 0.8,
    }
    body.update(overrides)
    return json.dumps(body)


def test_critique_json_in_a_code_fence_is_accepted() -> None:
    review = parse_critique("Here you go:\n```json\n" + critique_json(["A", "B"], ["B", "A"]) + "\n```", ("A", "B"))
    assert review.ranking == ["B", "A"] and review.by_label()["A"].overall == 7


@pytest.mark.parametrize(
    "text",
    [
        "not json at all",
        '{"critiques": [}',
        critique_json(["A", "B"], ["A", "A"]),
        critique_json(["A"], ["A"]),
        critique_json(["A", "B"], confidence=3),
        critique_json(["A", "C"], ["A", "C"]),
    ],
    ids=["prose", "broken", "duplicate", "missing-label", "confidence-range", "unknown-label"],
)
def test_invalid_critiques_are_rejected(text: str) -> None:
    with pytest.raises(CritiqueParseError):
        parse_critique(text, ("A", "B"))


def test_score_out_of_range_is_rejected() -> None:
    text = critique_json(["A", "B"]).replace('"overall": 7', '"overall": 11', 1)
    with pytest.raises(CritiqueParseError, match="overall"):
        parse_critique(text, ("A", "B"))


def test_debate_reply_sections_and_targeted_messages() -> None:
    text = (
        "# ANSWER\nThe bound is tight.\n\n# RATIONALE\nLemma 3 gives the matching lower bound.\n\n"
        "# DISCUSSION\n## With Agent B\nCheck Lemma 3 again.\n## With Agent Z\nNobody is Z.\n## With C\nAgreed."
    )
    reply = parse_debate_reply(text, ("B", "C"))
    assert reply.answer == "The bound is tight."
    assert reply.rationale == "Lemma 3 gives the matching lower bound."
    assert reply.messages == {"B": "Check Lemma 3 again.", "C": "Agreed."}


def test_debate_reply_without_an_answer_section_is_a_format_error() -> None:
    with pytest.raises(DebateFormatError):
        parse_debate_reply("Just prose, no sections.", ("B",))
