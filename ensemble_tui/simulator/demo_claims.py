"""The demo's planted contradiction and the scripted claim map that reports it.

Two demo proposers disagree on a figure of `sample.pdf`: ChatGPT quotes the paper correctly
(87 of 120), Claude misquotes it (92); the others say nothing of it (but see `disagrees`). Every demo proposal also
makes two claims all agree on, each quoting the paper, and Gemini one claim of its own. The
scripted map is read from the mapper's own request (which letter holds which words), never from
a counter or a name, so it is right whatever the shuffle: one disputed claim with ✓ on one side
and ✗ on the other, and a medium confidence.
"""

from __future__ import annotations

import json
import re

MAP_MARK = "You map the claims"  # a phrase of the shipped Prompts/ClaimMapPrompt.txt

RIGHT_QUOTE = "aggregation with one resynthesis round answered 87 correctly, against 74 for the best single model"
WRONG_QUOTE = "aggregation with one resynthesis round answered 92 correctly, against 74 for the best single model"
ANONYMOUS_QUOTE = "Keeping the proposals anonymous prevents the aggregator from favouring a familiar name"
DEBATE_QUOTE = "Debate was the most expensive method because every round resends all answers to every model"
STABLE = "peer ranking was the most stable method across repeated runs"

FIGURES = {"ChatGPT": RIGHT_QUOTE, "Claude": WRONG_QUOTE}
# Auto mode's disagreeing question: one that names HERON (any case). There a model's second
# sample, and Gemini, misquote the figure too, so the two first answers of `--mode auto` disagree
# whether they are two samples or two models; any other question, they agree.
DISAGREE_WORD = "heron"


def disagrees(question: str) -> bool:
    return DISAGREE_WORD in question.lower()


def planted_claims(name: str, *, misquote: bool = False) -> str:
    """The claims a demo proposal (or revision) by `name` makes, quoting the paper; `misquote`:
    it gives the wrong figure, whoever it is."""
    lines = []
    if misquote:
        lines.append(f'On the HERON-7 benchmark, "{WRONG_QUOTE}" (p. 1).')
    elif name in FIGURES:
        lines.append(f'On the HERON-7 benchmark, "{FIGURES[name]}" (p. 1).')
    lines.append(f'Anonymity matters: "{ANONYMOUS_QUOTE}" (p. 1).')
    lines.append(f'Debate is the costly style: "{DEBATE_QUOTE}" (p. 2).')
    if name == "Gemini":
        lines.append(f"The field note adds that {STABLE}.")
    return "\n\n".join(lines)


_BLOCK = re.compile(r"^# Answer ([A-Z])\s*$", re.MULTILINE)


def _answers(user_text: str) -> dict[str, str]:
    """Each letter's answer text in the mapper's request."""
    parts = _BLOCK.split(user_text)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _stance(letter: str, stance: str, quote: str = "", paper_quote: str = "", page: int | None = None) -> dict:
    return {"letter": letter, "stance": stance, "quote": quote, "paper_quote": paper_quote, "page": page}


def _kind(stances: list[dict]) -> str:
    supports = sum(s["stance"] == "supports" for s in stances)
    contradicts = sum(s["stance"] == "contradicts" for s in stances)
    if supports and contradicts:
        return "contradiction"
    if supports == len(stances):
        return "consensus"
    return "unique" if supports == 1 else "partial"


def _claim(text: str, stances: list[dict], citations: list[str]) -> dict:
    return {"text": text, "kind": _kind(stances), "stances": stances, "citations": citations}


def scripted_map(user_text: str) -> str:
    """The claim map of the demo proposals in a mapper's request, as JSON text."""
    answers = _answers(user_text)
    claims = []
    figure = []
    for letter, text in answers.items():
        if "answered 87 correctly" in text:
            figure.append(_stance(letter, "supports", "answered 87 correctly", RIGHT_QUOTE, 1))
        elif "answered 92 correctly" in text:
            figure.append(_stance(letter, "contradicts", "answered 92 correctly", WRONG_QUOTE, 1))
        else:
            figure.append(_stance(letter, "silent"))
    if any(s["stance"] != "silent" for s in figure):
        claims.append(
            _claim(
                "With one resynthesis round, aggregation answered 87 of the 120 HERON-7 questions correctly.",
                figure,
                ["p. 1", "Table 1"],
            )
        )
    claims.append(
        _claim(
            "Keeping the proposals anonymous stops the aggregator favouring a familiar name.",
            [_stance(letter, "supports", "Anonymity matters", ANONYMOUS_QUOTE, 1) for letter in answers],
            ["p. 1"],
        )
    )
    claims.append(
        _claim(
            "Debate is the most expensive of the methods.",
            [_stance(letter, "supports", "Debate is the costly style", DEBATE_QUOTE, 2) for letter in answers],
            ["p. 2"],
        )
    )
    stable = [
        _stance(letter, "supports" if STABLE in text else "silent", STABLE if STABLE in text else "")
        for letter, text in answers.items()
    ]
    if any(s["stance"] == "supports" for s in stable):
        claims.append(_claim("Peer ranking was the most stable method.", stable, []))
    return json.dumps({"claims": claims}, indent=2)
