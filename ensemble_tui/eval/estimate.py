"""What an eval still has to spend, said before anything is spent, with its basis.

It counts the work left, not the whole eval: the answers not stored under the arm's current
configuration, and the verdicts and grades this run's judges have not given yet. Each call is
priced as core/turn/costs.py prices a prompt (its characters and its PDF), with an answer of an
assumed length: `ANSWER_TOKENS` for an answer, `VERDICT_TOKENS` for a verdict or a grade, and
`SEARCHES` searches where the call may search (the budget's bound, MAX_SEARCHES_PER_CALL, is a
worst case: counted for every call, it put the estimate at 2.4 times the demo eval's spend).
A judge reads the question's paper, its instructions and two answers of that assumed length.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ensemble_tui.core.errors import PromptFileError
from ensemble_tui.core.provider import Message, Usage
from ensemble_tui.core.text.counts import plural
from ensemble_tui.core.turn.costs import CHARS_PER_TOKEN, input_cost, search_bound, search_price, usage_cost
from ensemble_tui.eval.arms import SHARING, Arm, ArmKit
from ensemble_tui.eval.judging import eligible_judges, pairs_to_judge
from ensemble_tui.eval.model import ArmAnswer, EvalQuestion
from ensemble_tui.eval.runner import Left

ANSWER_TOKENS = 700  # an answer's length, assumed: a few paragraphs with quotes
VERDICT_TOKENS = 60  # a verdict or a grade: a reason and a line
JUDGE_PROMPT_CHARS = 2_500  # a judge's instructions, the question and the quote facts
SEARCHES = 1  # searches billed to a call that may search, assumed: one query or one grounded prompt


@dataclass(frozen=True)
class Estimate:
    usd: float
    answer_calls: int  # the calls of the answers still to ask
    answers: int  # answers still to ask
    judge_calls: int  # verdicts and grades still to ask (each one call; a repair would add one)

    @property
    def nothing_left(self) -> bool:
        return self.answers == 0 and self.judge_calls == 0

    def basis(self) -> str:
        """The estimate's basis, in one clause."""
        return (
            f"{plural(self.answers, 'answer')} to ask in about {plural(self.answer_calls, 'call')} and "
            f"{self.judge_calls} verdicts or grades to ask; each call at its prompt's size (the paper included) and "
            "an answer of "
            f"{ANSWER_TOKENS} tokens, {VERDICT_TOKENS} for a verdict, and {SEARCHES} search where it may search"
        )


def _call(kit: ArmKit, question: EvalQuestion, provider: str, judge: bool = False) -> float:
    """One call of `provider` on `question`: an answer's, or (`judge`) a verdict's."""
    if provider not in kit.providers:
        return 0.0
    pdf = Path(question.pdf) if question.pdf and Path(question.pdf).is_file() else None
    caller = kit.caller(pdf)
    if judge:
        system, messages = "", (Message("user", "x" * (JUDGE_PROMPT_CHARS + 2 * ANSWER_TOKENS * CHARS_PER_TOKEN)),)
    else:
        try:
            system = kit.prompts.proposer_system(provider)
        except PromptFileError:
            system = ""
        messages = (*(Message(m.role, m.text) for m in question.history), Message("user", question.text))
    request = caller.request(provider, system, messages)
    spec = kit.configs[provider].spec_or_cautious(request.model)
    output = VERDICT_TOKENS if judge else ANSWER_TOKENS
    searches = min(SEARCHES, search_bound(spec, request)) * search_price(spec)
    prompt = input_cost(spec, request, pdf.stat().st_size if pdf else 0)
    return prompt + searches + usage_cost(spec, Usage(output_tokens=output))


def _arm_calls(kit: ArmKit, arm: Arm, question: EvalQuestion, share_paid: bool) -> tuple[float, int]:
    """An arm's answer to one question: dollars and calls (an aggregator's loop counted with its
    one revision round, proposals shared as the eval shares them)."""
    proposers = tuple(p for p in kit.participants if p in kit.providers)
    everyone = sum(_call(kit, question, p) for p in proposers)
    n = len(proposers)
    aggregator = _call(kit, question, kit.settings.aggregator)
    if arm.kind == "single":
        return _call(kit, question, arm.provider), 1
    if arm.kind == "self":
        return 2 * (arm.samples + 1) * _call(kit, question, arm.provider), 2 * (arm.samples + 1)
    if arm.kind == "auto":
        return 3 * _call(kit, question, kit.settings.aggregator), 3
    if arm.style in SHARING:
        shared = (0.0, 0) if share_paid else (everyone, n)
        own = {
            "all": (n * _call(kit, question, proposers[0]) + 2 * aggregator, n + 2),
            "council": (everyone + aggregator, n + 1),
        }
        dollars, calls = own.get(arm.name, (everyone, n))
        return shared[0] + dollars, shared[1] + calls
    rounds = kit.settings.debate_rounds + 1
    return everyone * rounds, n * rounds


def writer(kit: ArmKit, arm: Arm, answer: ArmAnswer | None) -> ArmAnswer:
    """The answer's writer as the judges will see it: the stored answer's, else the arm's likely one."""
    if answer is not None:
        return answer
    likely = arm.provider if arm.kind in ("single", "self") else kit.settings.aggregator
    return ArmAnswer(question_id="", arm=arm.name, text="", writer=likely)


def estimate(
    kit: ArmKit, arms: Sequence[Arm], questions: Sequence[EvalQuestion], judges: Sequence[str], left: Left
) -> Estimate:
    usd = 0.0
    answers = answer_calls = judge_calls = 0
    for question in questions:
        share_paid = question.id in left.shared
        for arm in arms:
            if (question.id, arm.name) in left.answers:
                continue
            dollars, calls = _arm_calls(kit, arm, question, share_paid)
            share_paid = share_paid or arm.style in SHARING
            usd, answers, answer_calls = usd + dollars, answers + 1, answer_calls + calls
        expected = {arm.name: writer(kit, arm, left.answers.get((question.id, arm.name))) for arm in arms}
        asks: list[str] = []
        if question.graded:
            for arm, answer in expected.items():
                asks += [j for j in eligible_judges(answer, answer, judges) if (question.id, arm, j) not in left.grades]
        else:
            baselines = tuple(arm.name for arm in arms if arm.baseline)
            for one, other in pairs_to_judge(expected, baselines):
                for judge in eligible_judges(expected[one], expected[other], judges):
                    for first, second in ((one, other), (other, one)):
                        if (question.id, first, second, judge) not in left.verdicts:
                            asks.append(judge)
        judge_calls += len(asks)
        usd += sum(_call(kit, question, judge, judge=True) for judge in asks)
    return Estimate(usd, answer_calls, answers, judge_calls)
