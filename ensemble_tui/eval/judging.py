"""Blind pairwise judging of one question's answers: every arm against every single-model arm,
each pair shown in both orders, to judges that wrote neither side.

LLM judges prefer the answer shown first (MT-Bench) and their own text (arXiv 2404.13076), so
a pair is judged twice with the order swapped (stats.py turns a flip into a tie), a judge whose
provider wrote or shaped either answer abstains, and the judge reads "Answer 1" and "Answer 2"
with every model and maker name taken out of the texts.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from ensemble_tui.core.claims.anonymous import name_pattern, redact
from ensemble_tui.core.paper import quote_checks
from ensemble_tui.core.paper.quotes import QuoteReport
from ensemble_tui.core.prompts import PromptLibrary
from ensemble_tui.core.provider import ProviderError
from ensemble_tui.core.store.home import defaults_root
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.core.turn.styles.packet import neutralize_headings
from ensemble_tui.eval.model import ArmAnswer, EvalQuestion, Verdict, Winner

log = logging.getLogger(__name__)

# (provider, system, user_text) -> (reply text, cost in dollars). The caller attaches the
# question's PDF, if it has one (through the provider's file API, as a proposer's call does),
# and keeps the budget: anything it raises other than a
# ProviderError (the budget cap) stops the question.
JudgeCall = Callable[[str, str, str], Awaitable[tuple[str, float]]]

STYLE_ARMS = frozenset({"all", "council", "vote", "debate", "auto"})
_SELF_ARM = re.compile(r"self-\d+", re.IGNORECASE)
JUDGE_SYSTEM = ""  # the whole instruction is in Prompts/JudgePrompt.txt, which the user may edit
REASON_CHARS = 300
HISTORY_MESSAGES = 6  # the last few messages of the chat before the question: enough for "and its second part?"
CONCURRENT_CALLS = 8

WITH_PAPER = (
    "The attached paper is the reference: check each answer's claims and quotes against it, and count "
    "a specific that the paper does not support as a fault."
)
QUOTE_FACTS = (
    "The app has checked every quote of the paper in each answer against the paper's text, word for word. "
    "Take these checks as facts:"
)
WITHOUT_PAPER = (
    "There is no paper for this question, and none is attached: judge by what is well established, "
    "and count a confident specific that cannot be checked as a fault."
)


NUMBER_WORDS = {1: "once", 2: "twice"}
QUOTE_PREVIEW = 80


def times(count: int) -> str:
    return NUMBER_WORDS.get(count, f"{count} times")


def quote_fact(label: str, report: QuoteReport | None, names: re.Pattern[str] | None = None) -> str:
    """The local quote checks of one answer as a fact for the judge: "Answer 2 quotes the paper
    twice: 1 found (p. 4), 1 not found ("answered 92 correctly")."."""
    if report is None:  # the paper could not be read: no fact to tell
        return f"{label}'s quotes could not be checked against the paper."
    quotes = report.quotes
    if not quotes:
        return f"{label} does not quote the paper."
    found = [check for check in quotes if check.found]
    missing = [check for check in quotes if not check.found]
    parts = []
    if found:
        pages = ", ".join(f"p. {check.page}" for check in found)
        parts.append(f"{len(found)} found ({pages})")
    if missing:
        shown = []
        for check in missing:
            text = anonymous_text(check.quotation.text, names).replace("\n", " ")
            shown.append(f'"{text[: QUOTE_PREVIEW - 1] + "…" if len(text) > QUOTE_PREVIEW else text}"')
        parts.append(f"{len(missing)} not found ({'; '.join(shown)})")
    return f"{label} quotes the paper {times(len(quotes))}: {', '.join(parts)}."


def reference_text(question: EvalQuestion, facts: Sequence[str]) -> str:
    """What the judge is told to check the answers against: the attached paper and the app's
    quote checks of each answer, or that there is no paper."""
    if not question.pdf:
        return WITHOUT_PAPER
    lines = [WITH_PAPER, "", QUOTE_FACTS, *(f"- {fact}" for fact in facts)]
    return "\n".join(lines)


async def quote_reports(
    answers: Mapping[str, ArmAnswer], pdf: str | None, cache: Path | None
) -> dict[str, QuoteReport]:
    """Each answer's quote checks against the question's paper (the checks the app makes on a
    chat's reply); none without a paper, or where the paper cannot be read."""
    if not pdf or cache is None or not Path(pdf).is_file():
        return {}
    checks = await quote_checks.check_texts({arm: a.text for arm, a in answers.items()}, Path(pdf), cache)
    return {arm: QuoteReport.from_record(record) for arm, record in checks.items() if not record.get("notice")}


def baseline_arms(arms: Iterable[str]) -> tuple[str, ...]:
    """The single-model arms (`chatgpt`, `claude`, an added provider): every arm that is neither a
    style (`all`, `council`, `vote`, `debate`, `auto`) nor `self-K`."""
    return tuple(arm for arm in arms if arm.casefold() not in STYLE_ARMS and not _SELF_ARM.fullmatch(arm))


def authors_of(answer: ArmAnswer) -> set[str]:
    """Whose answer it is: the provider whose model wrote its final text. An ensemble's final text
    is its aggregator's (or chairman's) words; the proposers only shaped it. Counting them too would
    leave no judge for any ensemble arm with the default panel of the three configured models."""
    return {answer.writer.casefold()} if answer.writer else set()


def eligible_judges(one: ArmAnswer, other: ArmAnswer, judges: Iterable[str]) -> tuple[str, ...]:
    """The judges that wrote neither answer (a judge prefers its own model's text, arXiv 2404.13076)."""
    authors = authors_of(one) | authors_of(other)
    return tuple(judge for judge in judges if judge.casefold() not in authors)


def pairs_to_judge(answers: dict[str, ArmAnswer], baselines: Sequence[str]) -> list[tuple[str, str]]:
    """Every answered arm against every answered single-model arm, each unordered pair once
    (`claude` against `gemini` is also `gemini` against `claude`), in the arms' order."""
    answered = [arm for arm, answer in answers.items() if answer.failed is None]
    pairs: list[tuple[str, str]] = []
    seen: set[frozenset[str]] = set()
    for arm in answered:
        for baseline in baselines:
            key = frozenset((arm, baseline))
            if baseline == arm or baseline not in answered or key in seen:
                continue
            seen.add(key)
            pairs.append((arm, baseline))
    return pairs


class UnreadableReply(ValueError):
    """A judge's reply that the app cannot read (`str(error)` says why, for the repair request)."""


class VerdictParseError(UnreadableReply):
    """The reply does not end with one `WINNER: 1|2|TIE` line."""


_MARKUP = re.compile(r"[*_`#>]")
_WINNER = re.compile(r"winner\s*:\s*(1|2|tie)\s*\.?", re.IGNORECASE)
_REASON = re.compile(r"^reason\s*:\s*", re.IGNORECASE)
_WINNERS: dict[str, Winner] = {"1": "first", "2": "second", "tie": "tie"}


def parse_verdict(text: str) -> tuple[Winner, str]:
    """The winner and the one-line reason. Strict: the last non-empty line (bold or code marks
    aside) must be `WINNER: 1`, `WINNER: 2` or `WINNER: TIE`, and no other line may name one, so
    a judge that wavers ("WINNER: 1 … on reflection WINNER: 2") is asked again, never guessed."""
    lines = [_MARKUP.sub("", line).strip() for line in strip_control(text).splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise VerdictParseError("the reply was empty")
    named = [line for line in lines if _WINNER.search(line)]
    last = _WINNER.fullmatch(lines[-1])
    if last is None:
        where = "is not on the last line" if named else "is missing"
        raise VerdictParseError(f"the line `WINNER: 1`, `WINNER: 2` or `WINNER: TIE` {where}")
    if len(named) > 1:
        raise VerdictParseError("more than one line names a winner")
    reasons = [line for line in lines[:-1] if _REASON.match(line)]
    reason = _REASON.sub("", reasons[-1] if reasons else (lines[-2] if len(lines) > 1 else ""))
    if len(reason) > REASON_CHARS:
        reason = reason[: REASON_CHARS - 1].rstrip() + "…"
    return _WINNERS[last.group(1).casefold()], reason


@dataclass(frozen=True)
class JudgeRequest:
    """What one judge reads for one ordered pair; the arms behind it never appear in the text."""

    judge: str
    first: str
    second: str
    text: str
    keys: tuple[str, str] = ("", "")  # the two answers' `ArmAnswer.key`, kept with the verdict


def history_text(question: EvalQuestion, names: re.Pattern[str] | None) -> str:
    """The chat before the question, the replies without names (the user's own words stay)."""
    if not question.history:
        return ""
    lines = ["", "The conversation before the question:"]
    for message in question.history[-HISTORY_MESSAGES:]:
        text = message.text if message.role == "user" else redact(message.text, names)
        who = "Researcher" if message.role == "user" else "Assistant"
        lines.append(f"{who}: {neutralize_headings(strip_control(text).strip())}")
    return "\n".join(lines) + "\n"


def inert(text: str) -> str:
    """Text a judge reads as material: no control characters, no heading that could pass for the
    packet's own (a known answer, an evidence passage, the judge's own earlier reply)."""
    return neutralize_headings(strip_control(text).strip())


def anonymous_text(text: str, names: re.Pattern[str] | None) -> str:
    """An answer as a judge reads it: no names, no control characters, no heading that could
    pass for the packet's own `# Answer 2`."""
    return neutralize_headings(redact(strip_control(text), names).strip())


def judge_requests(
    question: EvalQuestion,
    answers: dict[str, ArmAnswer],
    baselines: Sequence[str],
    judges: Sequence[str],
    prompts: PromptLibrary,
    names: Iterable[str] = (),
    reports: Mapping[str, QuoteReport] | None = None,
    done: Collection[tuple[str, str, str]] = (),
) -> list[JudgeRequest]:
    """Both orders of every pair, for every judge allowed to read it, but those `done` already
    (first arm, second arm, judge): a resumed eval never asks a judge twice for one order of a pair."""
    authors = [name for answer in answers.values() for name in (answer.writer, *answer.contributors)]
    pattern = name_pattern([*judges, *names, *authors])
    texts = {arm: anonymous_text(answer.text, pattern) for arm, answer in answers.items()}
    history = history_text(question, pattern)
    requests: list[JudgeRequest] = []
    for one, other in pairs_to_judge(answers, baselines):
        for judge in eligible_judges(answers[one], answers[other], judges):
            for first, second in ((one, other), (other, one)):
                if (first, second, judge) in done:
                    continue
                facts = [
                    quote_fact(f"Answer {n}", (reports or {}).get(arm), pattern) for n, arm in ((1, first), (2, second))
                ]
                text = prompts.judge(
                    reference=reference_text(question, facts),
                    history=history,
                    question=strip_control(question.text).strip(),
                    answer_1=texts[first],
                    answer_2=texts[second],
                )
                keys = (answers[first].key, answers[second].key)
                requests.append(JudgeRequest(judge, first, second, text, keys))
    return requests


Read = TypeVar("Read")


@dataclass(frozen=True)
class Reading(Generic[Read]):
    """What one request to a judge came to: its reply as read (None when it could not be had),
    the cost of every attempt, and one line saying why it failed (None when it was read)."""

    value: Read | None
    cost: float
    problem: str | None


async def ask_and_read(
    call: JudgeCall, judge: str, text: str, read: Callable[[str], Read], repair: str, names: tuple[str, str]
) -> Reading[Read]:
    """Ask `judge` and read its reply with `read`. A reply that cannot be read (UnreadableReply)
    is sent back once, with `repair` and what was wrong; the call carries one message, so the
    earlier reply is quoted. `names`: who reads and what it gives, for the failure lines
    (("judge", "verdict"), ("grader", "grade"))."""
    who, what = names
    cost = 0.0
    reply = problem = ""
    for attempt in range(2):
        asked = text
        if attempt:
            asked = f"{text}\n\n# Your earlier reply\n{inert(reply)}\n\n{repair}\n\nThe problem: {problem}."
        try:
            reply, spent = await call(judge, JUDGE_SYSTEM, asked)
        except ProviderError as exc:
            log.info("%s %s failed: %s", who, judge, exc.message)
            return Reading(None, cost, f"the {who}'s call failed: {exc.message}")
        cost += spent
        try:
            return Reading(read(reply), cost, None)
        except UnreadableReply as exc:
            problem = str(exc)
    return Reading(None, cost, f"the {what} could not be read twice ({problem})")


async def judge_one(question: EvalQuestion, request: JudgeRequest, call: JudgeCall, prompts: PromptLibrary) -> Verdict:
    """One ordered pair under one judge, with one repair request if its verdict cannot be read."""
    repair = prompts.judge_repair()
    reading = await ask_and_read(call, request.judge, request.text, parse_verdict, repair, ("judge", "verdict"))
    winner, reason = reading.value or ("tie", "")
    return Verdict(
        question_id=question.id,
        first=request.first,
        second=request.second,
        judge=request.judge,
        winner=winner,
        cost_usd=reading.cost,
        reason=reason,
        problem=reading.problem,
        keys=request.keys,
    )


async def judge_question(
    question: EvalQuestion,
    answers: dict[str, ArmAnswer],
    baseline_arms: Sequence[str],
    judges: Sequence[str],
    call: JudgeCall,
    *,
    prompts: PromptLibrary | None = None,
    names: Iterable[str] = (),
    concurrency: int = CONCURRENT_CALLS,
    cache: Path | None = None,
    done: Collection[tuple[str, str, str]] = (),
    keep: Callable[[Verdict], None] = lambda verdict: None,
) -> list[Verdict]:
    """Every verdict on one question's answers not `done` already, in a stable order (pair,
    judge, order); each is handed to `keep` the moment it is in, so a budget stop or a kill
    loses no verdict already paid for.

    `prompts`: the home's prompt library (default: the packaged prompts); `names`: more words
    to take out of the answers, such as the configured model ids (provider labels and makers'
    names always are); `cache`: where the paper's text is cached for the quote checks the judges
    are told. A pair every judge wrote a side of gets no verdict; stats.py reports it.
    """
    library = prompts or PromptLibrary(defaults_root() / "Prompts")
    reports = await quote_reports(answers, question.pdf, cache)
    requests = judge_requests(question, answers, baseline_arms, judges, library, names, reports, done)
    gate = asyncio.Semaphore(max(1, concurrency))

    async def gated(request: JudgeRequest) -> Verdict:
        async with gate:
            verdict = await judge_one(question, request, call, library)
        keep(verdict)
        return verdict

    tasks = [asyncio.ensure_future(gated(request)) for request in requests]
    if not tasks:
        return []
    try:
        return list(await asyncio.gather(*tasks))
    finally:  # the budget cap (or a cancel) stops the question: no judge call left running
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
