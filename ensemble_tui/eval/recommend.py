"""The eval's conclusion in plain words, with the small-sample rule: an interval that still
holds ½ is said to be too few questions to tell, with how many would tell."""

from __future__ import annotations

from dataclasses import dataclass

from ensemble_tui.core.text.counts import plural
from ensemble_tui.eval.stats import ArmRow, EvalSummary


@dataclass(frozen=True)
class Recommendation:
    headline: str  # what to do, one sentence
    findings: tuple[str, ...]  # one sentence or two per arm, the strongest case first


def arm_name(summary: EvalSummary, arm: str) -> str:
    """`Claude alone` for a single-model arm (its writer's name), the arm's own name otherwise."""
    if arm in summary.baselines:
        row = summary.row(arm)
        return f"{row.authors[0] if row.authors else arm} alone"
    return arm


def percent(value: float) -> str:
    return f"{value * 100:.0f}%"


def money(value: float | None) -> str:
    """Dollars to a tenth of a cent (a cent's hundredth below that): one column reads alike."""
    if value is None:
        return "—"
    if value >= 1:
        return f"${value:.2f}"
    return f"${value:.3f}" if value >= 0.001 or value == 0 else f"${value:.5f}"


def cost_ratio(row: ArmRow, best: ArmRow) -> float | None:
    if row.cost_per_question is None or not best.cost_per_question:
        return None
    return row.cost_per_question / best.cost_per_question


def standing(row: ArmRow) -> str:
    """ "better", "worse" or "unclear": whether the interval leaves ½ out, and on which side."""
    interval = row.tally.interval
    if interval is None:
        return "unclear"
    if interval[0] > 0.5:
        return "better"
    if interval[1] < 0.5:
        return "worse"
    return "unclear"


def finding(summary: EvalSummary, row: ArmRow) -> str:
    """ "On your 10 questions, council won 6, tied 2, lost 2 against Claude alone, for 4.1× the
    cost: …" and, when the interval holds ½, that the sample is too small and what would do."""
    assert summary.best is not None
    best = summary.row(summary.best)
    against = arm_name(summary, summary.best)
    name = arm_name(summary, row.arm)
    tally = row.tally
    if tally.rate is None or tally.interval is None:
        return f"{name} was not judged against {against}: {why_unjudged(summary, row, against)}"
    judged = tally.questions
    scope = f"On your {plural(judged, 'question')}"
    if judged != summary.pairwise_questions:
        scope = f"On {judged} of your {plural(summary.pairwise_questions, 'question')}"
    ratio = cost_ratio(row, best)
    cost = f", for {ratio:.1f}× the cost" if ratio is not None else ""
    low, high = tally.interval
    text = (
        f"{scope}, {name} won {tally.wins}, tied {tally.ties}, lost {tally.losses} against {against}{cost}: "
        f"a win rate of {percent(tally.rate)} (95% interval {percent(low)}–{percent(high)})."
    )
    verdict = standing(row)
    if verdict == "better":
        text += f" It is better than {against} on questions like yours."
    elif verdict == "worse":
        text += f" It is worse than {against} on questions like yours."
    else:
        needed = row.to_tell
        if needed is None:
            text += " That is a dead heat: no number of questions would tell them apart at this rate."
        else:
            text += (
                f" That is too few questions to tell: if the rate held, about {needed} questions would tell it "
                "from an even match."
            )
    if row.excluded or row.lost or row.pending:
        text += f" ({why_unjudged(summary, row, against)})"
    return text


def why_unjudged(summary: EvalSummary, row: ArmRow, against: str) -> str:
    parts = []
    if row.excluded:
        judges = ", ".join(summary.judges) or "no judge was named"
        parts.append(
            f"on {row.excluded} question(s) every judge ({judges}) wrote it or {against}; "
            "add a judge from another provider with --judges"
        )
    if row.lost:
        parts.append(f"{row.lost} question(s) lost their verdicts (unreadable replies or failed calls)")
    if row.pending:
        parts.append(f"{row.pending} question(s) not judged yet (the eval stopped first; run it again to go on)")
    if not row.answered:
        parts.append("it gave no answer")
    return "; ".join(parts) + "." if parts else "no verdicts."


def recommend(summary: EvalSummary) -> Recommendation:
    """What to use, then the evidence per arm: clearly better arms first, then the unclear, then the worse."""
    if summary.best is None:
        return Recommendation("No single-model arm answered, so there is nothing to measure the others against.", ())
    against = arm_name(summary, summary.best)
    rows = [row for row in summary.rows if not row.reference]
    order = {"better": 0, "unclear": 1, "worse": 2}
    rows.sort(key=lambda row: (not row.tally.questions, order[standing(row)], -(row.tally.rate or 0.0)))
    findings = tuple(finding(summary, row) for row in rows)
    better = [row for row in rows if standing(row) == "better"]
    if better:
        top = better[0]
        cheapest = min(better, key=lambda row: row.cost_per_question or 0.0)
        headline = f"Use {arm_name(summary, top.arm)}: it beat {against} clearly on your questions."
        if cheapest is not top:
            headline += f" {arm_name(summary, cheapest.arm)} also did, for less."
        return Recommendation(headline, findings)
    judged = [row for row in rows if row.tally.questions]
    unjudged = [arm_name(summary, row.arm) for row in rows if not row.tally.questions]
    also = f" Not judged: {', '.join(unjudged)}." if unjudged else ""
    unclear = [row for row in judged if standing(row) == "unclear"]
    if unclear:
        needs = [row.to_tell for row in unclear if row.to_tell is not None]
        more = f" About {min(needs)} questions would settle the closest call." if needs else ""
        asked = plural(summary.pairwise_questions, "question")
        return Recommendation(
            f"Stay with {against} for now: no arm beat it clearly on your {asked}, "
            f"and the sample is too small to tell.{more}{also}",
            findings,
        )
    if judged:
        return Recommendation(f"Stay with {against}: every arm judged against it lost.{also}", findings)
    return Recommendation(f"Stay with {against}: no other arm could be judged against it.", findings)


def accuracy_headline(summary: EvalSummary) -> str | None:
    """The questions with a known answer, in plain words: the most accurate arm, whether it is
    clearly ahead (its 95% interval above every other arm's), and, where it is not, which of the
    arms level with it costs least per correct answer. None when nothing was graded."""
    rows = [row for row in summary.grades if row.interval is not None]
    if not rows:
        return None
    asked = f"your {plural(summary.graded_questions, 'question')} with a known answer"
    top = max(rows, key=lambda row: row.accuracy or 0.0)
    lowest_of_top = top.interval[0] if top.interval else 0.0
    level = [row for row in rows if row.interval is not None and row.interval[1] >= lowest_of_top]
    if len(level) == 1:
        return (
            f"{arm_name(summary, top.arm)} was clearly the most accurate on {asked}: "
            f"{top.correct} of {top.graded} correct."
        )
    tally = ", ".join(f"{arm_name(summary, row.arm)} {row.correct} of {row.graded}" for row in level)
    priced = [row for row in level if row.per_correct is not None]
    cheapest = min(priced, key=lambda row: row.per_correct or 0.0, default=None)
    cost = (
        f"; {arm_name(summary, cheapest.arm)} costs least per correct answer ({money(cheapest.per_correct)})"
        if cheapest is not None
        else ""
    )
    return f"No arm was clearly more accurate on {asked} ({tally}){cost}."
