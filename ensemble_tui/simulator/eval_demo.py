"""`eval --demo`: the demo simulator with answers of known quality, so the eval's report is predictable.

Every answer carries its quality as a line, "Demo quality: N of 5", and every step of every style
reads those lines: a proposal has its model's quality (Claude 4, ChatGPT 3, Gemini 2, an added
provider 3); an aggregator's final reply and a council chairman's are one better than the best
answer they read (capped at 5); rankings and critiques order the answers by quality, so a vote or
a debate picks the best proposal. A judge, shown two answers, prefers the one of higher quality
and calls equal ones a tie, in either order. So with the default aggregator (ChatGPT):
`all` and `council` score 5, `vote`, `debate` and `self-3` score 4 (the best single model's),
and the best single model is Claude.

A judge's request is recognised as the one request of no other role that shows two marked
answers; it is answered in Prompts/JudgePrompt.txt's form. A grader's request (a known answer,
Prompts/GradePrompt.txt) is graded by the one answer's quality: 4 and 5 correct, 3 partly
correct, below that incorrect on a hard question (one about HERON-7) and declined on the others.
So against the graded demo set (DEMO_GRADED, shipped beside the demo's paper) Claude and the
ensembles are always correct, ChatGPT partly, and Gemini declines or errs.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from ensemble_tui.simulator.demo import NAMES, REVISED_MARK, DemoSimulator, resynthesis_request, role_of
from ensemble_tui.simulator.demo_claims import ANONYMOUS_QUOTE, RIGHT_QUOTE, WRONG_QUOTE
from ensemble_tui.simulator.script import RecordedRequest, ScriptedReply

LATENCY_VARIABLE = "ENSEMBLE_TUI_EVAL_DEMO_LATENCY_S"
QUALITY = {"ChatGPT": 3, "Claude": 4, "Gemini": 2}
DEFAULT_QUALITY = 3
BEST = 5
_MARK = re.compile(r"Demo quality: (\d) of 5")
_BLOCK = re.compile(r"^# (?:Answer|Agent) ([A-Z])\s*$", re.MULTILINE)
# Questions an eval of a demo home with too few chats of its own asks instead (with a chat before each).
DEMO_QUESTIONS = (
    "What problem does the paper set out to solve?",
    "Which assumption matters most for the main result?",
    "How is the method evaluated, and against what?",
    "What does the ablation study show?",
    "Which limitation do the authors admit?",
    "How would the method scale to ten times the data?",
    "Which equation carries the main idea, in words?",
    "What does HERON-7 show about aggregation?",
    "How large is the HERON-7 gain over the best single model?",
    "Would the HERON-7 result survive a second benchmark?",
)
DEMO_GRADED = Path(__file__).resolve().parent / "eval_demo_questions.jsonl"  # questions with known answers
GRADE_MARK = "GRADE: PARTLY CORRECT"  # a line of Prompts/GradePrompt.txt's: the request is a grader's
HARD = "HERON-7"  # the hard questions: a middling answer misquotes the paper's figure on them
DEMO_HISTORY = ("Summarise the paper in one paragraph.", "A simulated summary of the paper, from an earlier turn.")


def mark(quality: int) -> str:
    return f"Demo quality: {quality} of 5"


def qualities(text: str) -> list[int]:
    return [int(found) for found in _MARK.findall(text)]


def answer(name: str, quality: int, kind: str = "answer", hard: bool = False) -> str:
    """A scripted answer: the better it is, the more of its quotes of the demo's paper are right
    (4 and 5: two found; 3: both found, but on a hard question (one about HERON-7) one of two;
    2 and below: its one quote is not in the paper). So auto, whose pair is the middling
    ChatGPT's, agrees on the easy questions and escalates on the hard ones."""
    if quality >= 4 or (quality == 3 and not hard):
        quotes = [ANONYMOUS_QUOTE, RIGHT_QUOTE]
    elif quality == 3:
        quotes = [ANONYMOUS_QUOTE, WRONG_QUOTE]
    else:
        quotes = [WRONG_QUOTE]
    cited = " ".join(f'The paper says "{quote}" (p. 1).' for quote in quotes)
    return (
        f"**Simulated {name} {kind}** for the eval demo - no real model was called.\n\n"
        f"A scripted answer of known quality, so the eval's report can be checked. {cited}\n\n{mark(quality)}"
    )


def labelled(text: str) -> dict[str, int]:
    """Each `# Answer X` block's quality, by its letter."""
    spans = list(_BLOCK.finditer(text))
    found: dict[str, int] = {}
    for n, span in enumerate(spans):
        end = spans[n + 1].start() if n + 1 < len(spans) else len(text)
        marks = qualities(text[span.end() : end])
        found[span.group(1)] = marks[0] if marks else 0
    return found


def ranking(name: str, text: str) -> str:
    order = sorted(labelled(text).items(), key=lambda item: -item[1])
    lines = "\n".join(f"{n}. {label}" for n, (label, _) in enumerate(order, start=1))
    return f"(Simulated {name} review for the eval demo.)\n\nFINAL RANKING:\n{lines}"


def critique(name: str, text: str) -> str:
    scored = labelled(text)
    order = [label for label, _ in sorted(scored.items(), key=lambda item: -item[1])]
    critiques = []
    for label, quality in scored.items():
        score = 2 * quality
        scores = dict.fromkeys(("correctness", "completeness", "clarity", "helpfulness", "overall"), score)
        critiques.append({"label": label, "critique": f"Scripted by {name}.", **scores, "safety": 10})
    return json.dumps({"critiques": critiques, "ranking": order, "confidence": 0.9})


def judge(text: str) -> str:
    first, second = qualities(text)[:2]
    winner = "TIE" if first == second else ("1" if first > second else "2")
    return f"REASON: Scripted: quality {first} against {second}.\nWINNER: {winner}"  # Prompts/JudgePrompt.txt's form


def grade(text: str) -> str:
    found = qualities(text)
    quality = found[0] if found else 0
    if quality >= 4:
        word = "CORRECT"
    elif quality == 3:
        word = "PARTLY CORRECT"
    else:
        word = "INCORRECT" if HARD in text else "DECLINED"
    return f"REASON: Scripted: an answer of quality {quality}.\nGRADE: {word}"  # Prompts/GradePrompt.txt's form


def eval_reply(name: str, text: str) -> str | None:
    """The eval demo's reply to a request, or None where the plain demo's reply will do."""
    if GRADE_MARK in text:
        return grade(text)
    role = role_of(text)
    if role == "proposal":
        if len(qualities(text)) >= 2:
            return judge(text)
        return answer(name, QUALITY.get(name, DEFAULT_QUALITY), hard=HARD in text)
    if role == "revision":
        own = QUALITY.get(name, DEFAULT_QUALITY)
        return answer(name, own, "revision") + f"\n\n{REVISED_MARK}"
    if role == "aggregator":
        if REVISED_MARK not in text:
            return resynthesis_request(name)
        return "FINAL REPLY:\n" + answer(name, min(BEST, max(qualities(text), default=0) + 1), "final reply")
    if role == "chairman":
        return answer(name, min(BEST, max(qualities(text), default=0) + 1), "chair's reply")
    if role == "ranking":
        return ranking(name, text)
    if role == "critique":
        return critique(name, text)
    if role == "debate":
        own = QUALITY.get(name, DEFAULT_QUALITY)
        return f"# ANSWER\n{answer(name, own, 'debate answer')}\n\n# RATIONALE\nScripted.\n\n# DISCUSSION\nScripted."
    return None


class EvalDemoSimulator(DemoSimulator):
    """The demo simulator, answering as `eval_reply` scripts, and quicker (the eval makes many calls)."""

    def __init__(self, seed: int | None = None, *, account: Path | None = None) -> None:
        pause = float(os.environ.get(LATENCY_VARIABLE, "0") or 0)  # a test that kills an eval mid-run slows it
        super().__init__(seed, latency=(pause, pause) if pause > 0 else (0.02, 0.08), account=account)

    def _responder(self, provider: str) -> Callable[[RecordedRequest], ScriptedReply]:
        plain = super()._responder(provider)
        name = NAMES.get(provider, provider)

        def respond(request: RecordedRequest) -> ScriptedReply:
            text = eval_reply(name, request.last_user_text)
            if text is None:
                return plain(request)
            return ScriptedReply(text, latency_s=self._pause())

        return respond
