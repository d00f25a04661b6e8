"""The eval's run: every arm answers every question, the judges read the answers, all of it kept
as it comes so a killed eval resumes, and the whole of it under one hard budget cap.

The judging itself (who judges which pair, in which order) is `judge_question`'s, handed in; this
module gives it `call`, one model call without the PDF, reserved against the same cap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ensemble_tui.core.money import cents
from ensemble_tui.core.provider import Message
from ensemble_tui.core.turn.costs import BudgetExceeded
from ensemble_tui.eval.arms import SHARING, Arm, ArmKit, Proposals, arm_config, run_arm
from ensemble_tui.eval.model import ArmAnswer, EvalPlan, EvalQuestion, GradeVerdict, Verdict
from ensemble_tui.eval.store import EvalStore

JudgeCall = Callable[[str, str, str], Awaitable[tuple[str, float]]]
JudgeQuestion = Callable[..., Awaitable[list[Verdict]]]  # judging.judge_question, prompts bound
GradeQuestion = Callable[..., Awaitable[list[GradeVerdict]]]  # grading.grade_question, prompts bound
Progress = Callable[[int, float], None]  # questions done, dollars spent (this eval, every run of it)


@dataclass
class EvalResult:
    answers: dict[tuple[str, str], ArmAnswer]  # (question id, arm) -> this run's arms' current answers
    verdicts: list[Verdict]  # those that count: this run's judges, on these very answers
    spent_usd: float  # this eval's calls, every run of it ("spent by this eval in all")
    stopped: str | None = None  # why it ended before every question was done (the budget), else None
    grades: list[GradeVerdict] = field(default_factory=list)  # as `verdicts`, for the graded questions
    run_spent_usd: float = 0.0  # this run's calls ("spent by this run")
    reused: int = 0  # answers of earlier runs reused, their arm configured the same
    asked: int = 0  # answers this run asked for (failed ones included)

    def answer_list(self) -> list[ArmAnswer]:
        return list(self.answers.values())


def current_answers(
    stored: Mapping[tuple[str, str], ArmAnswer], configs: Mapping[str, str]
) -> dict[tuple[str, str], ArmAnswer]:
    """The stored answers this run may use: of its arms, answered, under the arm's configuration."""
    return {
        key: answer
        for key, answer in stored.items()
        if key[1] in configs and answer.failed is None and answer.config == configs[key[1]]
    }


def counted_verdicts(
    verdicts: Iterable[Verdict], answers: Mapping[tuple[str, str], ArmAnswer], judges: Sequence[str]
) -> list[Verdict]:
    """The verdicts that count: by a judge of this run, on the two answers this run reports."""
    kept = []
    for verdict in verdicts:
        one, other = (
            answers.get((verdict.question_id, verdict.first)),
            answers.get((verdict.question_id, verdict.second)),
        )
        if verdict.judge in judges and one and other and verdict.keys == (one.key, other.key):
            kept.append(verdict)
    return kept


def counted_grades(
    grades: Iterable[GradeVerdict], answers: Mapping[tuple[str, str], ArmAnswer], judges: Sequence[str]
) -> list[GradeVerdict]:
    kept = []
    for grade in grades:
        answer = answers.get((grade.question_id, grade.arm))
        if grade.judge in judges and answer is not None and grade.key == answer.key:
            kept.append(grade)
    return kept


@dataclass(frozen=True)
class Left:
    """What is done already, for the estimate of what is left (eval/estimate.py)."""

    answers: Mapping[tuple[str, str], ArmAnswer]  # current answers, by (question, arm)
    verdicts: set[tuple[str, str, str, str]]  # (question, first, second, judge) asked already
    grades: set[tuple[str, str, str]]  # (question, arm, judge) graded already
    shared: set[str]  # questions whose shared proposals are stored


@dataclass
class EvalRunner:
    plan: EvalPlan
    arms: Sequence[Arm]
    kit: ArmKit
    store: EvalStore
    judge_question: JudgeQuestion | None = None  # None: answers only (no judging available)
    progress: Progress = field(default=lambda done, spent: None)
    grade_question: GradeQuestion | None = None  # None: known answers are not graded

    def __post_init__(self) -> None:
        self.configs = {arm.name: arm_config(self.kit, arm) for arm in self.arms}
        self.asked = 0

    def left(self) -> Left:
        """What this run still has to do: the answers, and the verdicts and grades of its judges."""
        ids = {q.id for q in self.plan.questions}
        answers = current_answers(self.store.answers(ids), self.configs)
        verdicts = counted_verdicts(self.store.verdicts(ids), answers, self.plan.judges)
        grades = counted_grades(self.store.grades(ids), answers, self.plan.judges)
        return Left(
            answers=answers,
            verdicts={(v.question_id, v.first, v.second, v.judge) for v in verdicts},
            grades={(g.question_id, g.arm, g.judge) for g in grades},
            shared={q.id for q in self.plan.questions if self.store.proposals(q.id) is not None},
        )

    async def run(self) -> EvalResult:
        questions = self.plan.questions
        ids = {q.id for q in questions}
        answers = current_answers(self.store.answers(ids), self.configs)
        reused = len(answers)
        verdicts = counted_verdicts(self.store.verdicts(ids), answers, self.plan.judges)
        grades = counted_grades(self.store.grades(ids), answers, self.plan.judges)
        stopped: str | None = None
        done = 0
        self.progress(done, self.store.spent())
        for question in questions:
            try:
                await self._answer(question, answers)
                if question.graded:
                    await self._grade(question, answers, grades)
                else:
                    await self._judge(question, answers, verdicts)
            except BudgetExceeded as exc:
                stopped = budget_line(exc)
                break
            done += 1
            self.progress(done, self.store.spent())
        return EvalResult(
            answers=answers,
            verdicts=verdicts,
            spent_usd=self.store.spent(),
            stopped=stopped,
            grades=grades,
            run_spent_usd=self.store.spent_by_run(),
            reused=reused,
            asked=self.asked,
        )

    async def _answer(self, question: EvalQuestion, answers: dict[tuple[str, str], ArmAnswer]) -> None:
        """Every arm without a current answer answers: the first sharing arm and the others
        together, then the sharing arms that reuse its proposals."""
        todo = [a for a in self.arms if (question.id, a.name) not in answers]
        if not todo:
            return
        shared = self.store.proposals(question.id)
        sharing = [a for a in todo if a.kind == "style" and a.style in SHARING]
        first = [a for a in todo if a not in sharing]
        if shared is None and sharing:
            first.append(sharing.pop(0))
        offered = await self._run_all(question, first, shared, answers)
        shared = shared or offered
        if sharing:
            await self._run_all(question, sharing, shared, answers)

    async def _run_all(
        self,
        question: EvalQuestion,
        arms: list[Arm],
        shared: Proposals | None,
        answers: dict[tuple[str, str], ArmAnswer],
    ) -> Proposals | None:
        """These arms at once; each answer is stored the moment it is in. A budget stop cancels the rest."""
        offered: list[Proposals] = []

        async def one(arm: Arm) -> None:
            answer, proposals = await run_arm(self.kit, arm, question, shared)
            answer = answer.model_copy(update={"config": self.configs[arm.name]})
            self.asked += 1
            if proposals is not None:
                self.store.save_proposals(question.id, proposals)
                offered.append(proposals)
            self.store.save_answer(answer)
            if answer.failed is None:
                answers[(question.id, arm.name)] = answer

        # A budget stop in one arm lets the others finish: their calls are paid for already.
        outcomes = await asyncio.gather(*(one(arm) for arm in arms), return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        return offered[0] if offered else None

    def _given(self, question: EvalQuestion, answers: Mapping[tuple[str, str], ArmAnswer]) -> dict[str, ArmAnswer]:
        return {arm.name: a for arm in self.arms if (a := answers.get((question.id, arm.name)))}

    async def _judge(
        self, question: EvalQuestion, answers: Mapping[tuple[str, str], ArmAnswer], verdicts: list[Verdict]
    ) -> None:
        """The pairs not yet judged by this run's judges, in the orders not yet asked."""
        if self.judge_question is None:
            return
        given = self._given(question, answers)
        baselines = tuple(arm.name for arm in self.arms if arm.baseline and arm.name in given)
        done = {(v.first, v.second, v.judge) for v in verdicts if v.question_id == question.id}

        def keep(verdict: Verdict) -> None:
            self.store.save_verdicts([verdict])
            verdicts.append(verdict)

        await self.judge_question(
            question, given, baselines, self.plan.judges, self._call_for(question), done=done, keep=keep
        )

    async def _grade(
        self, question: EvalQuestion, answers: Mapping[tuple[str, str], ArmAnswer], grades: list[GradeVerdict]
    ) -> None:
        """Each answer graded by the judges of this run that did not write it and have not graded it yet."""
        if self.grade_question is None:
            return
        done = {(g.arm, g.judge) for g in grades if g.question_id == question.id}

        def keep(grade: GradeVerdict) -> None:
            self.store.save_grade(grade)
            grades.append(grade)

        await self.grade_question(
            question, self._given(question, answers), self.plan.judges, self._call_for(question), done=done, keep=keep
        )

    def _call_for(self, question: EvalQuestion) -> JudgeCall:
        pdf = Path(question.pdf) if question.pdf and Path(question.pdf).is_file() else None

        async def call(provider: str, system: str, user_text: str) -> tuple[str, float]:
            return await self.judge_call(provider, system, user_text, pdf)

        return call

    async def judge_call(
        self, provider: str, system: str, user_text: str, pdf: Path | None = None
    ) -> tuple[str, float]:
        """One judge's call: the question's paper through the provider's file API (the chat's
        uploads reused, as a proposer's call does), and the anonymous answers as text, reserved
        against the eval's cap."""
        caller = self.kit.caller(pdf)
        reply = await caller.call(provider, "reviewer", system, (Message("user", user_text),))
        return reply.text, caller.spent


def budget_line(exc: BudgetExceeded) -> str:
    stop = "Budget stop (simulated money)" if exc.simulated else "Budget stop"
    if exc.reason is not None:  # the ledger could not be written, or a bill went past its bound
        return f"{stop}: {exc.reason}"
    return f"{stop}: the next call could take the eval past its {cents(exc.cap)} cap ({exc.figures()})."
