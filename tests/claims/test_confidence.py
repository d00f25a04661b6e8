"""The confidence rule (README "Confidence"), the summary line, and the paper checks of a map's
evidence against the sample PDF."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ensemble_tui.core.claims.confidence import ConfidenceInputs, confidence
from ensemble_tui.core.claims.evidence import resolve
from ensemble_tui.core.claims.wire import parse_wire_map

SAMPLE = Path(__file__).parent.parent / "data" / "sample.pdf"


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        # the README's example: 4 claims, 2 consensus, 1 contradiction, 1 of 4 paper quotes missing
        (ConfidenceInputs(4, 2, 1, quotes_checked=4, quotes_missing=1), "medium"),
        (ConfidenceInputs(5, 3, 0, quotes_checked=2, quotes_missing=0), "high"),
        (ConfidenceInputs(5, 3, 0, quotes_checked=2, quotes_missing=1), "medium"),  # one quote not in the paper
        (ConfidenceInputs(5, 3, 1), "medium"),  # a contradiction
        (ConfidenceInputs(10, 2, 0), "low"),  # under 30 % consensus
        (ConfidenceInputs(5, 2, 3), "low"),  # more contradictions than consensus
        (ConfidenceInputs(4, 3, 0, quotes_checked=3, quotes_missing=2), "low"),  # most quotes not in the paper
        (ConfidenceInputs(0, 0, 0), "low"),
    ],
)
def test_the_rule(inputs, expected):
    assert confidence(inputs) == expected


def wire(claims):
    return parse_wire_map(json.dumps({"claims": claims}), ("A", "B", "C"))


def stance(letter, kind="supports", paper_quote="", page=None, quote="words"):
    return {"letter": letter, "stance": kind, "quote": quote, "paper_quote": paper_quote, "page": page}


def test_letters_map_back_to_models_and_quotes_are_checked_against_the_paper(tmp_path):
    claims = [
        {
            "text": "Aggregation with resynthesis answered N of 120.",
            "kind": "contradiction",
            "stances": [
                stance("A", paper_quote="aggregation with one resynthesis round answered 87 correctly", page=1),
                stance("B", "contradicts", paper_quote="aggregation with one resynthesis round answered 92 correctly"),
                stance("C", "silent"),
            ],
            "citations": ["Table 1", "Table 9"],
        },
        {"text": "Debate costs most.", "kind": "consensus", "stances": [stance(x) for x in "ABC"], "citations": []},
    ]
    by_letter = {"A": "Gemini", "B": "ChatGPT", "C": "Claude"}
    result = resolve(wire(claims), by_letter, SAMPLE, tmp_path, mapper="ChatGPT", model="gpt-test")
    disputed = result.claims[0]
    assert disputed.stances["Gemini"].stance == "supports"
    assert disputed.stances["Gemini"].evidence.marker == "✓ p. 1"
    assert disputed.stances["ChatGPT"].stance == "contradicts"
    assert disputed.stances["ChatGPT"].evidence.marker == "✗ not in the paper"
    assert disputed.stances["Claude"].stance == "silent" and disputed.stances["Claude"].evidence is None
    assert [(c.text, c.found) for c in disputed.citations] == [("Table 1", True), ("Table 9", False)]
    # 1 of 2 consensus, a contradiction, 1 of 2 paper quotes missing
    assert result.confidence == "medium"
    assert result.summary == "1 agreed · 1 disputed · 0 unique · confidence medium"
    assert [c.kind for c in result.disputed_first()] == ["contradiction", "consensus"]


def test_without_a_pdf_nothing_is_marked(tmp_path):
    claims = [
        {"text": "x", "kind": "unique", "stances": [stance("A", paper_quote="four words of paper")], "citations": []}
    ]
    result = resolve(wire(claims), {"A": "ChatGPT", "B": "Claude", "C": "Gemini"}, None, tmp_path)
    evidence = result.claims[0].stances["ChatGPT"].evidence
    assert evidence.found is None and evidence.marker == ""
    assert result.paper_checked is False
    assert result.claims[0].stances["Claude"].stance == "silent"  # left out by the mapper: silent


def test_model_text_in_a_map_is_made_inert(tmp_path):
    claims = [{"text": "a\x1b[31m red\x07 claim", "kind": "unique", "stances": [stance("A")], "citations": []}]
    result = resolve(wire(claims), {"A": "ChatGPT", "B": "Claude", "C": "Gemini"}, None, tmp_path)
    assert "\x1b" not in result.claims[0].text and "\x07" not in result.claims[0].text


def test_a_claim_s_kind_comes_from_its_stances_not_the_mapper_s_label(tmp_path, caplog):
    """Issue 34 §5: three claims labelled "consensus", each supported by one proposal and
    contradicted by two, are three disputed claims, and the confidence is not high."""
    mislabelled = {
        "text": "The lemma holds.",
        "kind": "consensus",
        "stances": [stance("A"), stance("B", "contradicts"), stance("C", "contradicts")],
        "citations": [],
    }
    unique = {"text": "Only A says so.", "kind": "consensus", "stances": [stance("A")], "citations": []}
    by_letter = {"A": "Gemini", "B": "ChatGPT", "C": "Claude"}
    with caplog.at_level("WARNING"):
        result = resolve(wire([mislabelled] * 3 + [unique]), by_letter, None, tmp_path)
    assert result.summary == "0 agreed · 3 disputed · 1 unique · confidence low"
    assert "labelled consensus has the stances of a contradiction claim" in caplog.text
