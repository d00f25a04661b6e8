"""Grading against a known answer: each arm's answer to a question that has one, read blind by
every judge that did not write it, graded correct, partly correct, incorrect or declined.

A grader reads the question, the known answer (and its evidence passage, if given), the paper
when the question has one, the app's quote checks of the answer, and the answer without any
model or maker name. The grades of one answer are reduced to their majority (`majority`).
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ensemble_tui.core.claims.anonymous import name_pattern
from ensemble_tui.core.paper.quotes import QuoteReport
from ensemble_tui.core.prompts import PromptLibrary
from ensemble_tui.core.store.home import defaults_root
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.eval.judging import (
    CONCURRENT_CALLS,
    REASON_CHARS,
    JudgeCall,
    UnreadableReply,
    anonymous_text,
    ask_and_read,
    authors_of,
    history_text,
    inert,
    quote_fact,
    quote_reports,
    reference_text,
)
from ensemble_tui.eval.model import GRADES, ArmAnswer, EvalQuestion, Grade, GradeVerdict

_MARKUP = re.compile(r"[*_`#>]")
_GRADE = re.compile(r"grade\s*:\s*(correct|partly[ -]correct|partially[ -]correct|incorrect|declined)\s*\.?", re.I)
_REASON = re.compile(r"^reason\s*:\s*", re.IGNORECASE)
# A tie among the judges goes to the less favourable grade: an answer is not called correct on a split.
TIE_ORDER: tuple[Grade, ...] = ("incorrect", "declined", "partly correct", "correct")


class GradeParseError(UnreadableReply):
    """The reply does not end with one `GRADE: …` line."""


def parse_grade(text: str) -> tuple[Grade, str]:
    """The grade and the one-line reason; strict as `parse_verdict` is: the last line names the
    grade, and no other line names one."""
    lines = [_MARKUP.sub("", line).strip() for line in strip_control(text).splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise GradeParseError("the reply was empty")
    named = [line for line in lines if _GRADE.search(line)]
    last = _GRADE.fullmatch(lines[-1])
    if last is None:
        raise GradeParseError(f"the line `GRADE: …` {'is not on the last line' if named else 'is missing'}")
    if len(named) > 1:
        raise GradeParseError("more than one line names a grade")
    word = re.sub(r"[ -]+", " ", last.group(1).casefold()).replace("partially", "partly")
    grade = next(g for g in GRADES if g == word)
    reasons = [line for line in lines[:-1] if _REASON.match(line)]
    reason = _REASON.sub("", reasons[-1] if reasons else (lines[-2] if len(lines) > 1 else ""))
    return grade, reason[:REASON_CHARS]


def graders(answer: ArmAnswer, judges: Iterable[str]) -> tuple[str, ...]:
    """The judges that did not write the answer."""
    authors = authors_of(answer)
    return tuple(judge for judge in judges if judge.casefold() not in authors)


def majority(grades: Sequence[Grade]) -> Grade | None:
    """The grade most judges gave; a tie goes to the less favourable (TIE_ORDER); None without any."""
    if not grades:
        return None
    counts = Counter(grades)
    top = max(counts.values())
    return next(grade for grade in TIE_ORDER if counts.get(grade) == top)


@dataclass(frozen=True)
class GradeRequest:
    judge: str
    arm: str
    text: str
    key: str  # the graded answer's `ArmAnswer.key`


def grade_requests(
    question: EvalQuestion,
    answers: dict[str, ArmAnswer],
    judges: Sequence[str],
    prompts: PromptLibrary,
    names: Iterable[str] = (),
    reports: Mapping[str, QuoteReport] | None = None,
    done: Collection[tuple[str, str]] = (),
) -> list[GradeRequest]:
    """One request per answered arm and judge that did not write it, but those `done` (arm, judge)."""
    authors = [name for answer in answers.values() for name in (answer.writer, *answer.contributors)]
    pattern = name_pattern([*judges, *names, *authors])
    history = history_text(question, pattern)
    evidence = f"\nThe passage that holds it:\n{inert(question.evidence)}\n" if question.evidence else ""
    requests = []
    for arm, answer in answers.items():
        if answer.failed is not None:
            continue
        facts = [quote_fact("The answer", (reports or {}).get(arm), pattern)]
        for judge in graders(answer, judges):
            if (arm, judge) in done:
                continue
            text = prompts.grade(
                reference=reference_text(question, facts),
                history=history,
                question=strip_control(question.text).strip(),
                known_answer=inert(question.answer or ""),
                evidence=evidence,
                answer=anonymous_text(answer.text, pattern),
            )
            requests.append(GradeRequest(judge, arm, text, answer.key))
    return requests


async def grade_one(
    question: EvalQuestion, request: GradeRequest, call: JudgeCall, prompts: PromptLibrary
) -> GradeVerdict:
    """One answer under one judge, with one repair request if its grade cannot be read."""
    repair = prompts.grade_repair()
    reading = await ask_and_read(call, request.judge, request.text, parse_grade, repair, ("grader", "grade"))
    grade, reason = reading.value or ("incorrect", "")
    return GradeVerdict(
        question_id=question.id,
        arm=request.arm,
        judge=request.judge,
        grade=grade,
        cost_usd=reading.cost,
        reason=reason,
        problem=reading.problem,
        key=request.key,
    )


async def grade_question(
    question: EvalQuestion,
    answers: dict[str, ArmAnswer],
    judges: Sequence[str],
    call: JudgeCall,
    *,
    prompts: PromptLibrary | None = None,
    names: Iterable[str] = (),
    cache: Path | None = None,
    done: Collection[tuple[str, str]] = (),
    keep: Callable[[GradeVerdict], None] = lambda grade: None,
    concurrency: int = CONCURRENT_CALLS,
) -> list[GradeVerdict]:
    """Every grade of one question's answers not `done` already; each handed to `keep` as it comes."""
    library = prompts or PromptLibrary(defaults_root() / "Prompts")
    reports = await quote_reports(answers, question.pdf, cache)
    requests = grade_requests(question, answers, judges, library, names, reports, done)
    gate = asyncio.Semaphore(max(1, concurrency))

    async def gated(request: GradeRequest) -> GradeVerdict:
        async with gate:
            grade = await grade_one(question, request, call, library)
        keep(grade)
        return grade

    tasks = [asyncio.ensure_future(gated(request)) for request in requests]
    if not tasks:
        return []
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
