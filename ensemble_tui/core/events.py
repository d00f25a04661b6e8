"""Typed events a run yields; the Textual app and the `ask` command both consume them.

Named as things that happened, so handlers read naturally (`on_final_reply_ready`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ensemble_tui.core.modes import RunMode, Style


@dataclass(frozen=True)
class RunStarted:
    mode: RunMode
    query: str
    redo: bool


@dataclass(frozen=True)
class StatusChanged:
    """A status line: the spec's text plus which proposers have answered so far."""

    text: str
    answered: tuple[str, ...] = ()
    waiting: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProposalReceived:
    """A model's output as proposer or single model (never its aggregator output)."""

    provider: str
    model: str
    query: str
    text: str
    note: str = ""


@dataclass(frozen=True)
class ProposerFailed:
    provider: str
    message: str


@dataclass(frozen=True)
class Resubmitted:
    """The aggregator asked for another round; `text` is the request sent to proposers."""

    iteration: int
    text: str


@dataclass(frozen=True)
class ReviewReceived:
    """A ranking, critique or vote from one model; `accepted` is False if it could not be read."""

    reviewer: str
    text: str
    accepted: bool
    problem: str | None = None


@dataclass(frozen=True)
class VoteRow:
    author: str
    rank: int
    points: float
    first_places: int
    mean_overall: float | None = None
    mean_correctness: float | None = None
    average_position: float | None = None
    ballots: int = 0
    medal: str | None = None


@dataclass(frozen=True)
class VoteCounted:
    """The tally of a council, vote or debate, best first."""

    style: Style
    rows: tuple[VoteRow, ...]


@dataclass(frozen=True)
class CostUpdated:
    session_cost_usd: float


@dataclass(frozen=True)
class Notice:
    """Something worth a line to the user that does not stop the run."""

    message: str


@dataclass(frozen=True)
class FinalReplyReady:
    text: str
    sources: tuple[str, ...]
    mode: RunMode


@dataclass(frozen=True)
class RunFailed:
    """The turn stopped; its input stays in place so an empty send retries it."""

    message: str


EngineEvent = (
    RunStarted
    | StatusChanged
    | ProposalReceived
    | ProposerFailed
    | Resubmitted
    | ReviewReceived
    | VoteCounted
    | CostUpdated
    | Notice
    | FinalReplyReady
    | RunFailed
)
