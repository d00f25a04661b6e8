"""What an eval is made of: questions, the arms' answers to them, and the judges' verdicts.

The runner (eval/runner.py) produces `ArmAnswer`s and `Verdict`s and keeps them in
History.sqlite3 so a killed eval resumes; the statistics and the report read only these records.
Model names live here for the report; nothing in these records is ever sent to a judge as is
(judging.py shows the two answers as "Answer 1" and "Answer 2").
"""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ensemble_tui.core.chat.session import ChatMessage


class EvalQuestion(BaseModel):
    """One question, with the PDF and the chat before it that its answers may use."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str  # stable across runs of the same eval: a hash of the text, PDF and history
    text: str
    pdf: str | None = None  # an absolute path, or None for a question without a paper
    history: tuple[ChatMessage, ...] = ()  # the answered chat before it (user inputs and final replies)
    # A known answer (an exam's, the user's notes, QASPER's): the arms' answers are then graded
    # against it (grading.py) instead of compared in pairs; `evidence` is the passage that holds it.
    answer: str | None = None
    evidence: str | None = None

    @property
    def graded(self) -> bool:
        return bool(self.answer and self.answer.strip())


class ArmAnswer(BaseModel):
    """An arm's final answer to one question, with what it cost."""

    model_config = ConfigDict(extra="ignore")

    question_id: str
    arm: str  # "chatgpt", "self-3", "all", "council", "vote", "debate", "auto", …
    text: str
    writer: str  # the provider whose model wrote the final text (a judge of that model abstains)
    contributors: tuple[str, ...] = ()  # every provider whose words shaped it (proposers, aggregator)
    cost_usd: float = 0.0  # this arm's own share; calls shared with other arms are counted once, in `shared_from`
    calls: int = 0
    latency_s: float = 0.0  # the answer's critical path, first call to final text
    shared_from: str | None = None  # the arm whose proposals this one reused, if any
    calls_saved: int = 0  # proposer calls this arm did not make because it reused another's
    shared_cost_usd: float = 0.0  # what those reused calls cost `shared_from`: this arm alone would pay it too
    quotes_checked: int = 0  # quotes of the paper in the answer
    quotes_found: int = 0  # …of which the quote checker found in the paper
    failed: str | None = None  # one line, when the arm gave no answer (it then loses no pair: it is left out)
    # The arm's configuration when it answered (arms.arm_config: models, style settings, prompt
    # texts): a stored answer is reused only by a run whose arm hashes the same.
    config: str = ""

    @property
    def key(self) -> str:
        """This answer's identity for its verdicts: its configuration and its text. A verdict on
        an answer since replaced (another model, an edited prompt) no longer counts."""
        digest = hashlib.sha256(f"{self.config}\x00{self.text}".encode())
        return digest.hexdigest()[:16]


Winner = Literal["first", "second", "tie"]


class Verdict(BaseModel):
    """One judge's reading of one ordered pair: the answer shown first, then the second."""

    model_config = ConfigDict(extra="ignore")

    question_id: str
    first: str  # the arm shown as "Answer 1"
    second: str  # the arm shown as "Answer 2"
    judge: str  # the provider that judged
    winner: Winner
    cost_usd: float = 0.0
    reason: str = ""  # the judge's one-line reason, kept for the report's reader
    # One line when no verdict came (unreadable twice, a failed call): `winner` then means nothing
    # and the statistics skip it; it is kept for its cost and the report's count of lost verdicts.
    problem: str | None = None
    keys: tuple[str, str] = ("", "")  # the `ArmAnswer.key` of the first answer and of the second


Grade = Literal["correct", "partly correct", "incorrect", "declined"]
GRADES: tuple[Grade, ...] = ("correct", "partly correct", "incorrect", "declined")


class GradeVerdict(BaseModel):
    """One judge's grade of one arm's answer against the question's known answer."""

    model_config = ConfigDict(extra="ignore")

    question_id: str
    arm: str
    judge: str
    grade: Grade = "incorrect"
    cost_usd: float = 0.0
    reason: str = ""
    problem: str | None = None  # one line when no grade came (unreadable twice, a failed call)
    key: str = ""  # the graded answer's `ArmAnswer.key`


class PairOutcome(BaseModel):
    """Both orders of one pair under one judge, reduced: a verdict that flips with the order is a tie."""

    question_id: str
    arm: str
    baseline: str
    judge: str
    result: Literal["win", "tie", "loss"]  # for `arm` against `baseline`


class EvalPlan(BaseModel):
    """What the user asked for, and the estimate shown before anything is spent."""

    arms: tuple[str, ...]
    judges: tuple[str, ...]
    samples: int = 3  # K of `self-K`, when an arm names none
    self_model: str = ""  # the provider sampled by `self-K` (default: the aggregator)
    budget_usd: float | None = None  # a hard cap for the whole eval
    questions: tuple[EvalQuestion, ...] = Field(default_factory=tuple)
