"""Textual messages that carry core engine events from the turn worker to the app.

Each message is named for what happened and carries the core event unchanged plus the id of
the run that produced it: after a cancel or a restart, late messages from the superseded run
are recognised and dropped instead of painting stale state.
"""

from __future__ import annotations

from textual.message import Message

from ensemble_tui.core.events import (
    CostUpdated,
    EngineEvent,
    FinalReplyReady,
    Notice,
    ProposalReceived,
    ProposerFailed,
    Resubmitted,
    ReviewReceived,
    RunFailed,
    RunStarted,
    StatusChanged,
    VoteCounted,
)


class TurnMessage(Message):
    """Base class: one engine event from run `run_id`."""

    def __init__(self, run_id: int, event: EngineEvent) -> None:
        super().__init__()
        self.run_id = run_id
        self.event = event


class TurnBegan(TurnMessage):
    event: RunStarted


class TurnStatusChanged(TurnMessage):
    event: StatusChanged


class ProposalArrived(TurnMessage):
    event: ProposalReceived


class ProposerSkipped(TurnMessage):
    event: ProposerFailed


class ResubmissionSent(TurnMessage):
    event: Resubmitted


class ReviewArrived(TurnMessage):
    """A ranking, critique or vote from one model (council, vote and debate styles)."""

    event: ReviewReceived


class VotesCounted(TurnMessage):
    event: VoteCounted


class TurnEventPosted(TurnMessage):
    """Any event this version of the app does not know: delivered, and ignored, never a crash."""


class SessionCostChanged(TurnMessage):
    event: CostUpdated


class TurnNoticed(TurnMessage):
    event: Notice


class ReplyFinished(TurnMessage):
    event: FinalReplyReady


class TurnFailed(TurnMessage):
    event: RunFailed


_MESSAGE_FOR: dict[type, type[TurnMessage]] = {
    RunStarted: TurnBegan,
    StatusChanged: TurnStatusChanged,
    ProposalReceived: ProposalArrived,
    ProposerFailed: ProposerSkipped,
    Resubmitted: ResubmissionSent,
    ReviewReceived: ReviewArrived,
    VoteCounted: VotesCounted,
    CostUpdated: SessionCostChanged,
    Notice: TurnNoticed,
    FinalReplyReady: ReplyFinished,
    RunFailed: TurnFailed,
}


def message_for(run_id: int, event: EngineEvent) -> TurnMessage:
    """The Textual message for a core event; an event type added to the core later than this
    app gets the generic TurnEventPosted rather than ending the run."""
    return _MESSAGE_FOR.get(type(event), TurnEventPosted)(run_id, event)
