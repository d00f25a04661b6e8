"""Eval records built by hand: answers, and both orders of a pair as one judge read them."""

from __future__ import annotations

from ensemble_tui.eval.model import ArmAnswer, EvalPlan, EvalQuestion, Verdict

WRITERS = {"chatgpt": "ChatGPT", "claude": "Claude", "gemini": "Gemini"}


def answer(question_id: str, arm: str, **fields: object) -> ArmAnswer:
    values: dict[str, object] = {"text": f"{arm}'s answer", "writer": WRITERS.get(arm, "Claude")}
    values.update(fields)
    return ArmAnswer(question_id=question_id, arm=arm, **values)


def both_orders(question_id: str, arm: str, baseline: str, judge: str, result: str) -> list[Verdict]:
    """Two consistent verdicts: `result` ("win", "tie", "loss") is for `arm` in either order."""
    shown_first = {"win": "first", "loss": "second", "tie": "tie"}[result]
    shown_second = {"win": "second", "loss": "first", "tie": "tie"}[result]
    return [
        Verdict(question_id=question_id, first=arm, second=baseline, judge=judge, winner=shown_first),
        Verdict(question_id=question_id, first=baseline, second=arm, judge=judge, winner=shown_second),
    ]


def plan(arms: tuple[str, ...], judges: tuple[str, ...], questions: int) -> EvalPlan:
    return EvalPlan(
        arms=arms,
        judges=judges,
        questions=tuple(EvalQuestion(id=f"q{index}", text=f"Question {index}?") for index in range(questions)),
    )
