"""The eval's run: every arm answers every question, the judges read the answers, all of it kept
as it comes so a killed eval resumes, and the whole of it under one hard budget cap.

The judging itself (who judges which pair, in which order) is `judge_question`'s, handed in; this
module gives it `call`, one model call without the PDF, reserved against the same cap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ensemble_tui.core.errors import PromptFileError
from ensemble_tui.core.money import cents
from ensemble_tui.core.provider import Turn, Usage
from ensemble_tui.core.turn.costs import BudgetExceeded, estimate_call_cost, fixed_cost, usage_cost
from ensemble_tui.eval.arms import SHARING, Arm, ArmKit, Proposals, run_arm
from ensemble_tui.eval.model import ArmAnswer, EvalPlan, EvalQuestion, Verdict
from ensemble_tui.eval.store import EvalStore

JudgeCall = Callable[[str, str, str], Awaitable[tuple[str, float]]]
JudgeQuestion = Callable[
    [EvalQuestion, dict[str, ArmAnswer], tuple[str, ...], tuple[str, ...], JudgeCall], Awaitable[list[Verdict]]
]
Progress = Callable[[int, float], None]  # questions done, dollars spent (this eval, every run of it)
JUDGE_PROMPT_CHARS = 6_000
JUDGE_OUTPUT_TOKENS = 600  # a judge reads two answers and its instructions: a cautious size for the estimate


@dataclass
class EvalResult:
    answers: dict[tuple[str, str], ArmAnswer]  # (question id, arm) -> answer
    verdicts: list[Verdict]
    spent_usd: float  # this eval's calls, every run of it
    stopped: str | None = None  # why it ended before every question was done (the budget), else None

    def answer_list(self) -> list[ArmAnswer]:
        return list(self.answers.values())


@dataclass
class EvalRunner:
    plan: EvalPlan
    arms: Sequence[Arm]
    kit: ArmKit
    store: EvalStore
    judge_question: JudgeQuestion | None = None  # None: answers only (no judging available)
    progress: Progress = field(default=lambda done, spent: None)

    async def run(self) -> EvalResult:
        questions = self.plan.questions
        ids = {q.id for q in questions}
        answers = self.store.answers(ids)
        judged = self.store.judged() & ids
        stopped: str | None = None
        done = 0
        self.progress(done, self.store.spent())
        for question in questions:
            try:
                await self._answer(question, answers)
                if self.judge_question is not None and question.id not in judged:
                    verdicts = await self._judge(question, answers)
                    self.store.save_verdicts(verdicts)
                    judged.add(question.id)
            except BudgetExceeded as exc:
                stopped = budget_line(exc)
                break
            done += 1
            self.progress(done, self.store.spent())
        return EvalResult(answers, self.store.verdicts(ids), self.store.spent(), stopped)

    async def _answer(self, question: EvalQuestion, answers: dict[tuple[str, str], ArmAnswer]) -> None:
        """Every arm not yet answered (or failed before) answers: the first sharing arm and the
        others together, then the sharing arms that reuse its proposals."""
        todo = [a for a in self.arms if (found := answers.get((question.id, a.name))) is None or found.failed]
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
            if proposals is not None:
                self.store.save_proposals(question.id, proposals)
                offered.append(proposals)
            self.store.save_answer(answer)
            answers[(question.id, arm.name)] = answer

        # A budget stop in one arm lets the others finish: their calls are paid for already.
        outcomes = await asyncio.gather(*(one(arm) for arm in arms), return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        return offered[0] if offered else None

    async def _judge(self, question: EvalQuestion, answers: Mapping[tuple[str, str], ArmAnswer]) -> list[Verdict]:
        assert self.judge_question is not None
        given = {arm.name: a for arm in self.arms if (a := answers.get((question.id, arm.name))) and not a.failed}
        baselines = tuple(arm.name for arm in self.arms if arm.baseline and arm.name in given)
        return await self.judge_question(question, given, baselines, self.plan.judges, self.judge_call)

    async def judge_call(self, provider: str, system: str, user_text: str) -> tuple[str, float]:
        """One judge's call: the two anonymous answers as text, no PDF, reserved against the cap."""
        caller = self.kit.caller(None)
        reply = await caller.call(provider, "reviewer", system, (Turn("user", user_text),))
        return reply.text, caller.spent


def estimate_usd(kit: ArmKit, arms: Sequence[Arm], questions: Sequence[EvalQuestion], judges: Sequence[str]) -> float:
    """A cautious guess of what the eval will cost, before anything is spent: each call at its
    prompt's size and a long answer (core/turn/costs.py), each aggregator loop with one extra
    round, proposals shared as the eval shares them, each pair judged in both orders."""
    return sum(_question_estimate(kit, arms, question, judges) for question in questions)


def _unit(kit: ArmKit, question: EvalQuestion | None, provider: str) -> float:
    """One call of `provider` on `question` (None: a judge's call, two answers and no PDF)."""
    if provider not in kit.providers:
        return 0.0
    pdf = Path(question.pdf) if question and question.pdf and Path(question.pdf).is_file() else None
    caller = kit.caller(pdf)
    if question is None:
        system, messages = "", (Turn("user", "x" * JUDGE_PROMPT_CHARS),)
    else:
        try:
            system = kit.prompts.proposer_system(provider)
        except PromptFileError:
            system = ""
        messages = (*(Turn(m.role, m.text) for m in question.history), Turn("user", question.text))
    request = caller.request(provider, system, messages)
    spec = kit.configs[provider].spec_or_cautious(request.model)
    if question is None:  # a verdict is a line or two, not a long answer
        return fixed_cost(spec, request, 0) + usage_cost(spec, Usage(output_tokens=JUDGE_OUTPUT_TOKENS))
    return estimate_call_cost(spec, request, pdf.stat().st_size if pdf else 0)


def _question_estimate(kit: ArmKit, arms: Sequence[Arm], question: EvalQuestion, judges: Sequence[str]) -> float:
    proposers = tuple(p for p in kit.participants if p in kit.providers)
    everyone = sum(_unit(kit, question, p) for p in proposers)
    aggregator = _unit(kit, question, kit.settings.aggregator)
    total = 0.0
    shared_paid = False
    for arm in arms:
        if arm.kind == "single":
            total += _unit(kit, question, arm.provider)
        elif arm.kind == "self":
            total += 2 * (arm.samples + 1) * _unit(kit, question, arm.provider)
        elif arm.kind == "auto":
            total += everyone + 2 * aggregator
        elif arm.style in SHARING:
            if not shared_paid:
                total += everyone
                shared_paid = True
            total += {"all": 2 * (everyone + aggregator), "council": everyone + aggregator}.get(arm.name, everyone)
        else:  # a debate: its rounds, then the rankings
            total += everyone * (kit.settings.debate_rounds + 1)
    pairs = sum(1 for arm in arms if arm.baseline) * (len(arms) - 1)  # each arm against each single model, cautiously
    judging = sum(_unit(kit, None, judge) for judge in judges)
    return total + 2 * pairs * judging


def budget_line(exc: BudgetExceeded) -> str:
    stop = "Budget stop (simulated money)" if exc.simulated else "Budget stop"
    return f"{stop}: the next call could take the eval past its {cents(exc.cap)} cap ({cents(exc.spent)} spent)."
