"""From verdicts to numbers: each arm against the best single model, with a Wilson interval.

The rules, stated once (the report repeats them):
- One judge, one pair: the two orders agree, or it is a tie. A verdict that flips with the
  order, or that wins in one order and ties in the other, is a tie (MT-Bench's "inconsistent").
- One question: the judges' outcomes are averaged (win 1, tie ½, loss 0); above ½ the arm won
  the question, below ½ it lost, at ½ it tied. The unit is the question, so two judges never
  count one question twice.
- The win rate counts a tie as half a win: p̂ = (wins + ties / 2) / questions.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ensemble_tui.eval.grading import majority
from ensemble_tui.eval.judging import baseline_arms, eligible_judges
from ensemble_tui.eval.model import ArmAnswer, EvalPlan, GradeVerdict, PairOutcome, Verdict

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile
SCORES = {"win": 1.0, "tie": 0.5, "loss": 0.0}
FLIPPED = {"win": "loss", "tie": "tie", "loss": "win"}


def wilson(rate: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion p̂ = `rate` observed on n trials:

        centre = (p̂ + z²/2n) / (1 + z²/n)
        half   = z / (1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²)

    Unlike p̂ ± z√(p̂(1−p̂)/n) it stays inside [0, 1] and is honest at 0/n and n/n, which small
    evals hit. With no trials, nothing is known: [0, 1].
    """
    if n <= 0:
        return 0.0, 1.0
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (rate + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(max(rate * (1 - rate), 0.0) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def questions_to_tell(rate: float, z: float = Z95) -> int | None:
    """How many questions the Wilson interval needs, at this observed rate, to leave out ½.

    The interval's ends are the roots x of (p̂ − x)² = z²·x(1 − x)/n, so ½ lies outside it
    exactly when (p̂ − ½)² > z²/(4n), that is n > z² / (4(p̂ − ½)²). None at p̂ = ½: no number
    of questions tells a dead heat from a coin toss. It assumes the rate stays as observed.
    """
    gap = abs(rate - 0.5)
    if gap < 1e-9:
        return None
    return math.floor(z * z / (4 * gap * gap)) + 1


def pair_outcomes(verdicts: Iterable[Verdict], baselines: Sequence[str]) -> list[PairOutcome]:
    """One outcome per (question, pair, judge) that has a readable verdict in both orders.

    `baseline` is the pair's single-model side; between two single models it is the one
    `baselines` lists later. Verdicts with a `problem`, or a pair judged in one order only,
    give nothing.
    """
    orders: dict[tuple[str, str, str, str], dict[bool, str]] = defaultdict(dict)
    rank = {arm: index for index, arm in enumerate(baselines)}
    for verdict in verdicts:
        if verdict.problem is not None:
            continue
        one, other = verdict.first, verdict.second
        if other not in rank or (one in rank and rank[one] > rank[other]):
            one, other = other, one  # `other` is the baseline side
        shown_first = verdict.first == one
        if verdict.winner == "tie":
            result = "tie"
        else:
            result = "win" if (verdict.winner == "first") == shown_first else "loss"
        orders[(verdict.question_id, one, other, verdict.judge)][shown_first] = result
    outcomes = []
    for (question_id, arm, baseline, judge), results in orders.items():
        if len(results) < 2:
            continue
        agreed = results[True] if results[True] == results[False] else "tie"
        outcomes.append(PairOutcome(question_id=question_id, arm=arm, baseline=baseline, judge=judge, result=agreed))
    return outcomes


def question_results(outcomes: Iterable[PairOutcome], arm: str, against: str) -> dict[str, str]:
    """question id -> "win" | "tie" | "loss" for `arm` against `against`, the judges averaged."""
    scores: dict[str, list[float]] = defaultdict(list)
    for outcome in outcomes:
        if (outcome.arm, outcome.baseline) == (arm, against):
            scores[outcome.question_id].append(SCORES[outcome.result])
        elif (outcome.arm, outcome.baseline) == (against, arm):
            scores[outcome.question_id].append(SCORES[FLIPPED[outcome.result]])
    results = {}
    for question_id, values in scores.items():
        mean = sum(values) / len(values)
        results[question_id] = "win" if mean > 0.5 + 1e-9 else "loss" if mean < 0.5 - 1e-9 else "tie"
    return results


@dataclass(frozen=True)
class Tally:
    wins: int = 0
    ties: int = 0
    losses: int = 0

    @property
    def questions(self) -> int:
        return self.wins + self.ties + self.losses

    @property
    def rate(self) -> float | None:
        """Ties count half a win."""
        return (self.wins + self.ties / 2) / self.questions if self.questions else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.rate, self.questions) if self.rate is not None else None

    @staticmethod
    def of(results: Iterable[str]) -> Tally:
        listed = list(results)
        return Tally(listed.count("win"), listed.count("tie"), listed.count("loss"))


@dataclass
class ArmRow:
    """One arm's line of the report: against the best single model, and what it costs alone."""

    arm: str
    answered: int = 0
    failed: int = 0
    tally: Tally = field(default_factory=Tally)
    reference: bool = False  # the best single model itself
    cost_per_question: float | None = None  # alone: its own calls plus the proposals it reused
    calls_per_question: float | None = None  # alone, as above
    median_latency_s: float | None = None
    quotes_checked: int = 0
    quotes_found: int = 0
    excluded: int = 0  # questions no judge could grade: every judge wrote one side
    lost: int = 0  # questions whose verdicts were all lost (unreadable, failed calls)
    pending: int = 0  # questions not judged yet (the eval stopped first): run it again to go on
    authors: tuple[str, ...] = ()  # who wrote or shaped its answers (the first: who a single model is)

    @property
    def quote_rate(self) -> float | None:
        return self.quotes_found / self.quotes_checked if self.quotes_checked else None

    @property
    def to_tell(self) -> int | None:
        """Questions needed to tell this rate from ½, when the interval still holds ½."""
        interval = self.tally.interval
        if self.tally.rate is None or interval is None or not interval[0] <= 0.5 <= interval[1]:
            return None
        return questions_to_tell(self.tally.rate)


@dataclass(frozen=True)
class Sharing:
    """What one arm saved by reusing another's proposals, over the whole eval."""

    arm: str
    shared_from: str
    questions: int
    calls_saved: int
    dollars_saved: float


@dataclass(frozen=True)
class PositionBias:
    """How much the order of the answers swayed the judges: a fair judge picks the answer shown
    first in half its decided verdicts, and seldom changes its mind when the order is swapped."""

    decided: int = 0  # readable verdicts that named a winner
    first: int = 0  # …of which for the answer shown first
    pairs: int = 0  # (question, pair, judge) read in both orders
    flipped: int = 0  # …of which the verdict changed with the order (counted as a tie)

    @property
    def first_rate(self) -> float | None:
        return self.first / self.decided if self.decided else None

    @property
    def flip_rate(self) -> float | None:
        return self.flipped / self.pairs if self.pairs else None


def position_bias(verdicts: Iterable[Verdict]) -> PositionBias:
    readable = [verdict for verdict in verdicts if verdict.problem is None]
    decided = [verdict for verdict in readable if verdict.winner != "tie"]
    orders: dict[tuple[str, frozenset[str], str], dict[str, str]] = defaultdict(dict)
    for verdict in readable:
        chosen = {"first": verdict.first, "second": verdict.second, "tie": "tie"}[verdict.winner]
        orders[(verdict.question_id, frozenset((verdict.first, verdict.second)), verdict.judge)][verdict.first] = chosen
    both = [picks for picks in orders.values() if len(picks) == 2]
    return PositionBias(
        decided=len(decided),
        first=sum(1 for verdict in decided if verdict.winner == "first"),
        pairs=len(both),
        flipped=sum(1 for picks in both if len(set(picks.values())) > 1),
    )


@dataclass
class GradeRow:
    """One arm's grades against the known answers: accuracy (correct ÷ graded), precision
    (correct ÷ answered, declines left out, as PaperQA2 and LitQA2 report it), dollars per
    correct answer."""

    arm: str
    correct: int = 0
    partly: int = 0
    incorrect: int = 0
    declined: int = 0
    ungraded: int = 0  # answered, but no grade (every judge wrote it, or every grade was lost)
    failed: int = 0  # no answer
    pending: int = 0  # not graded yet (the eval stopped first)
    cost_usd: float = 0.0  # its graded answers, each as if run alone

    @property
    def graded(self) -> int:
        return self.correct + self.partly + self.incorrect + self.declined

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.graded if self.graded else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.accuracy, self.graded) if self.accuracy is not None else None

    @property
    def precision(self) -> float | None:
        answered = self.graded - self.declined
        return self.correct / answered if answered else None

    @property
    def cost_per_question(self) -> float | None:
        """What one graded answer cost, as if its arm ran alone: the graded chart's x."""
        return self.cost_usd / self.graded if self.graded else None

    @property
    def per_correct(self) -> float | None:
        return self.cost_usd / self.correct if self.correct else None


def grade_rows(
    arms: Sequence[str], questions: Sequence[str], answers: Iterable[ArmAnswer], grades: Iterable[GradeVerdict]
) -> list[GradeRow]:
    """Per arm, the majority grade of each graded question's answer."""
    by_answer: dict[tuple[str, str], list[GradeVerdict]] = defaultdict(list)
    for grade in grades:
        by_answer[(grade.question_id, grade.arm)].append(grade)
    given = {(answer.question_id, answer.arm): answer for answer in answers}
    rows = []
    for arm in arms:
        row = GradeRow(arm)
        for question in questions:
            answer = given.get((question, arm))
            if answer is None or answer.failed is not None:
                row.failed += answer is not None
                row.pending += answer is None
                continue
            readable = [g.grade for g in by_answer[(question, arm)] if g.problem is None]
            final = majority(readable)
            if final is None:
                if by_answer[(question, arm)] or not answer.writer:
                    row.ungraded += 1
                else:
                    row.pending += 1
                continue
            row.cost_usd += answer.cost_usd + answer.shared_cost_usd
            if final == "correct":
                row.correct += 1
            elif final == "partly correct":
                row.partly += 1
            elif final == "incorrect":
                row.incorrect += 1
            else:
                row.declined += 1
        rows.append(row)
    return rows


@dataclass
class EvalSummary:
    questions: int
    arms: tuple[str, ...]
    judges: tuple[str, ...]
    baselines: tuple[str, ...]
    best: str | None
    rows: list[ArmRow]
    sharing: list[Sharing]
    answers_cost: float
    judging_cost: float
    verdicts: int
    lost_verdicts: list[Verdict]
    bias: PositionBias = field(default_factory=PositionBias)
    pairwise_questions: int = 0  # questions without a known answer: judged in pairs
    graded_questions: int = 0  # questions with a known answer: graded
    grades: list[GradeRow] = field(default_factory=list)
    grading_cost: float = 0.0
    grade_count: int = 0
    lost_grades: int = 0

    @property
    def total_cost(self) -> float:
        return self.answers_cost + self.judging_cost + self.grading_cost

    def row(self, arm: str) -> ArmRow:
        return next(row for row in self.rows if row.arm == arm)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _arm_row(arm: str, own: list[ArmAnswer]) -> ArmRow:
    done = [answer for answer in own if answer.failed is None]
    return ArmRow(
        arm=arm,
        answered=len(done),
        failed=len(own) - len(done),
        cost_per_question=_mean([answer.cost_usd + answer.shared_cost_usd for answer in done]),
        calls_per_question=_mean([float(answer.calls + answer.calls_saved) for answer in done]),
        median_latency_s=statistics.median(answer.latency_s for answer in done) if done else None,
        quotes_checked=sum(answer.quotes_checked for answer in done),
        quotes_found=sum(answer.quotes_found for answer in done),
        authors=tuple(dict.fromkeys(name for answer in done for name in (answer.writer, *answer.contributors) if name)),
    )


def best_single(
    baselines: Sequence[str], outcomes: list[PairOutcome], rows: dict[str, ArmRow]
) -> tuple[str | None, dict[str, float]]:
    """The single-model arm that wins most against the other single models (wins plus half its
    ties, question by question), ties broken by the lower cost per question, then by the order
    given. Also each one's score."""
    answered = [arm for arm in baselines if rows[arm].answered]
    scores: dict[str, float] = {}
    for arm in answered:
        tallies = [Tally.of(question_results(outcomes, arm, other).values()) for other in answered if other != arm]
        scores[arm] = sum(tally.wins + tally.ties / 2 for tally in tallies)
    if not answered:
        return None, scores
    ordered = sorted(answered, key=lambda arm: (-scores[arm], rows[arm].cost_per_question or 0.0, answered.index(arm)))
    return ordered[0], scores


def summarize(
    plan: EvalPlan, answers: Iterable[ArmAnswer], verdicts: Iterable[Verdict], grades: Iterable[GradeVerdict] = ()
) -> EvalSummary:
    """Every number the report and the recommendation show, for exactly the arms of `plan`."""
    arms = tuple(plan.arms)
    answers = [answer for answer in answers if answer.arm in arms]
    verdicts = [v for v in verdicts if v.first in arms and v.second in arms and v.judge in plan.judges]
    grades = [g for g in grades if g.arm in arms and g.judge in plan.judges]
    graded_ids = [q.id for q in plan.questions if q.graded]
    baselines = baseline_arms(arms)
    by_arm: dict[str, list[ArmAnswer]] = {arm: [] for arm in arms}
    by_question: dict[str, dict[str, ArmAnswer]] = defaultdict(dict)
    for answer in answers:
        by_arm[answer.arm].append(answer)
        if answer.question_id not in graded_ids:
            by_question[answer.question_id][answer.arm] = answer
    rows = {arm: _arm_row(arm, by_arm[arm]) for arm in arms}
    outcomes = pair_outcomes(verdicts, baselines)
    best, _ = best_single(baselines, outcomes, rows) if by_question else (None, {})
    asked = {(v.question_id, frozenset((v.first, v.second))) for v in verdicts}
    for arm, row in rows.items():
        if best is None:
            continue
        if arm == best:
            row.reference = True
            continue
        results = question_results(outcomes, arm, best)
        row.tally = Tally.of(results.values())
        for question_id, pair in by_question.items():
            one, other = pair.get(arm), pair.get(best)
            if one is None or other is None or one.failed or other.failed or question_id in results:
                continue
            if not eligible_judges(one, other, plan.judges):
                row.excluded += 1
            elif (question_id, frozenset((arm, best))) in asked:
                row.lost += 1  # its judges were asked, and no verdict came in both orders
            else:
                row.pending += 1
    pairwise = len(plan.questions) - len(graded_ids) if plan.questions else len(by_question)
    return EvalSummary(
        questions=len(plan.questions) or len(by_question),
        arms=arms,
        judges=plan.judges,
        baselines=baselines,
        best=best,
        rows=[rows[arm] for arm in arms],
        sharing=_sharing(answers),
        answers_cost=sum(answer.cost_usd for answer in answers),
        judging_cost=sum(verdict.cost_usd for verdict in verdicts),
        verdicts=len(verdicts),
        lost_verdicts=[verdict for verdict in verdicts if verdict.problem is not None],
        bias=position_bias(verdicts),
        pairwise_questions=pairwise,
        graded_questions=len(graded_ids),
        grades=grade_rows(arms, graded_ids, answers, grades) if graded_ids else [],
        grading_cost=sum(grade.cost_usd for grade in grades),
        grade_count=len(grades),
        lost_grades=sum(1 for grade in grades if grade.problem is not None),
    )


def _sharing(answers: list[ArmAnswer]) -> list[Sharing]:
    grouped: dict[tuple[str, str], list[ArmAnswer]] = defaultdict(list)
    for answer in answers:
        if answer.shared_from and answer.failed is None:
            grouped[(answer.arm, answer.shared_from)].append(answer)
    return [
        Sharing(
            arm,
            source,
            len(group),
            sum(answer.calls_saved for answer in group),
            sum(answer.shared_cost_usd for answer in group),
        )
        for (arm, source), group in grouped.items()
    ]
