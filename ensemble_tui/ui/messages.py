"""Textual messages that carry core engine events from the turn worker to the app.

Each message is named for what happened and carries the core event unchanged plus the id of
the run that produced it: after a cancel or a restart, late messages from the superseded run
are recognised and dropped instead of painting stale state.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the core's events are imported with the engine, on the first turn
    from ensemble_tui.core.events import (
        CostUpdated,
        EngineEvent,
        ReplyCommitted,
        Notice,
        ProposalReceived,
        ProposerFailed,
        Resubmitted,
        ReviewReceived,
        RunFailed,
        InputRecorded,
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
    event: InputRecorded


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
    event: ReplyCommitted


class TurnFailed(TurnMessage):
    event: RunFailed


@cache
def _message_types() -> dict[type, type[TurnMessage]]:
    """Each core event type's message, made on the first event (not at start-up, where
    importing the events' dataclasses cost ~4 ms before the first frame)."""
    from ensemble_tui.core import events

    return {
        events.InputRecorded: TurnBegan,
        events.StatusChanged: TurnStatusChanged,
        events.ProposalReceived: ProposalArrived,
        events.ProposerFailed: ProposerSkipped,
        events.Resubmitted: ResubmissionSent,
        events.ReviewReceived: ReviewArrived,
        events.VoteCounted: VotesCounted,
        events.CostUpdated: SessionCostChanged,
        events.Notice: TurnNoticed,
        events.ReplyCommitted: ReplyFinished,
        events.RunFailed: TurnFailed,
    }


def message_for(run_id: int, event: EngineEvent) -> TurnMessage:
    """The Textual message for a core event; an event type added to the core later than this
    app gets the generic TurnEventPosted rather than ending the run."""
    return _message_types().get(type(event), TurnEventPosted)(run_id, event)
