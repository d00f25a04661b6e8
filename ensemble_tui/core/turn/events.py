"""Typed events a run yields; the Textual app and the `ask` command both consume them.

Each event carries everything needed to show it, so a consumer never reads the session to
render a turn. Named as things that happened, so handlers read naturally.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ensemble_tui.core.chat.modes import RunMode, Style
from ensemble_tui.core.chat.provenance import VoteRow, short_reason
from ensemble_tui.core.chat.session import ChatMessage, ModelOutput, Resubmission

if TYPE_CHECKING:  # the events only carry a map; the app imports them before its first frame, and
    # the claims' models and the paper's quote check behind them (~10 % of the app's own imports) wait for a turn
    from ensemble_tui.core.claims.model import ClaimMap

__all__ = ["VoteRow"]  # the tally's rows, with the events that carry them

LEFT_OUT = "Claim map left out:"  # how a ClaimsLeftOut reads; never matched against a line


@dataclass(frozen=True)
class InputRecorded:
    """The turn began: `message` is the new input shown in the chat (None for a retry or a
    redo, whose question is already there); `withdrawn` is the reply a redo would replace
    (it stays in the chat until the new reply is stored, and stays for good if the redo fails)."""

    mode: RunMode
    query: str
    redo: bool
    message: ChatMessage | None = None
    withdrawn: ChatMessage | None = None


@dataclass(frozen=True)
class ChatReloaded:
    """Another ensemble-tui committed turns to this chat: its history as it now stands."""

    history: tuple[ChatMessage, ...]
    resubmissions: tuple[Resubmission, ...]
    last_outputs: dict[str, ModelOutput]
    cost_usd: float


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
    output: ModelOutput

    @property
    def text(self) -> str:
        return self.output.text

    @property
    def model(self) -> str:
        return self.output.model


@dataclass(frozen=True)
class ProposerFailed:
    provider: str
    message: str


@dataclass(frozen=True)
class Resubmitted:
    """The aggregator asked for another round; the resubmission holds the request sent."""

    resubmission: Resubmission

    @property
    def iteration(self) -> int:
        return self.resubmission.iteration

    @property
    def text(self) -> str:
        return self.resubmission.text


@dataclass(frozen=True)
class RetryScheduled:
    """A call failed and is tried again after `delay_s` (retry `attempt` of `allowed`)."""

    provider: str
    attempt: int
    allowed: int
    delay_s: float
    reason: str

    @property
    def line(self) -> str:
        """ "ChatGPT: retry 2 of 5 in 3 s (connection failed)"."""
        why = short_reason(self.provider, self.reason)
        return f"{self.provider}: retry {self.attempt} of {self.allowed} in {max(1, round(self.delay_s))} s ({why})"


@dataclass(frozen=True)
class ReviewReceived:
    """A ranking, critique or vote from one model; `accepted` is False if it could not be read."""

    reviewer: str
    text: str
    accepted: bool
    problem: str | None = None


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
class TurnNotSaved:
    """The turn could not be stored (a full disk, a read-only home, a broken History.sqlite3):
    one line that says so and names the recovery file holding the reply, if one was written.
    Sent before the turn's last event; `ask` then exits 1."""

    message: str


@dataclass(frozen=True)
class ReplyCommitted:
    """The final reply, saved with the chat before this event is sent. `claims`: the turn's
    claim map (None: a single-model turn, the map off or left out); shown, never sent to a model.
    `resubmissions`: the turn's synthesis requests as saved, with their quote checks (made once
    the turn ended)."""

    message: ChatMessage
    mode: RunMode
    claims: ClaimMap | None = None
    resubmissions: tuple[Resubmission, ...] = ()
    map_pending: bool = False  # the claim map is still being drawn: ClaimsMapped or ClaimsLeftOut follows
    turn_id: int | None = None  # the turn's record in the archive (None: not stored); keys the map's events

    @property
    def text(self) -> str:
        return self.message.text

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(self.message.sources)


@dataclass(frozen=True)
class ClaimsMapped:
    """The claim map of the turn stored as `turn_id` (ReplyCommitted.turn_id), drawn after its
    reply was committed (the reply never waits for it): kept with the run record before this is
    sent. Shown under the turn's reply, never sent to a model."""

    turn_id: int | None
    claims: ClaimMap


@dataclass(frozen=True)
class ClaimsLeftOut:
    """The turn's claim map could not be drawn (`reason`: why, one line). `late`: said after the
    reply (ReplyCommitted.map_pending), for the turn stored as `turn_id`; else during the turn,
    before its record exists (`turn_id` None). The reply is unaffected."""

    reason: str
    turn_id: int | None = None
    late: bool = False

    @property
    def message(self) -> str:
        """ "Claim map left out: the mapper's reply could not be read (…)."."""
        return f"{LEFT_OUT} {self.reason.rstrip('.')}."


@dataclass(frozen=True)
class RunFailed:
    """The turn stopped; `input_kept` says whether its input stays in the chat, so that an
    empty send retries it."""

    message: str
    input_kept: bool = False


@dataclass(frozen=True)
class TurnRolledBack:
    """The turn was cancelled and nothing of it kept but the money spent: the input it showed
    goes (and back into the input box), the reply a redo withdrew comes back, and each model
    pane it changed shows its output from before (None: none)."""

    message: ChatMessage | None
    restored: ChatMessage | None
    outputs: dict[str, ModelOutput | None]


TurnEvent = (
    InputRecorded
    | ChatReloaded
    | StatusChanged
    | ProposalReceived
    | ProposerFailed
    | Resubmitted
    | RetryScheduled
    | ReviewReceived
    | VoteCounted
    | CostUpdated
    | Notice
    | TurnNotSaved
    | ReplyCommitted
    | ClaimsMapped
    | ClaimsLeftOut
    | RunFailed
    | TurnRolledBack
)
"""The closed set of what a turn yields: consumers `match` on it and end with
`typing.assert_never`, so a new event cannot be ignored silently."""

EngineEvent = TurnEvent  # the older name, kept for the modules that type an `emit` with it
