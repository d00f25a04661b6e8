"""Typed events a run yields; the Textual app and the `ask` command both consume them.

Named as things that happened, so handlers read naturally (`on_final_reply_ready`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ensemble_tui.core.modes import Mode


@dataclass(frozen=True)
class RunStarted:
    mode: Mode
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
    mode: Mode


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
    | CostUpdated
    | Notice
    | FinalReplyReady
    | RunFailed
)
