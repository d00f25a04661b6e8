"""Restyle: the last turn again, in another style, from the proposals its run already holds.

Every style starts from the same first proposals, and the run record keeps them (its "answer"
artifacts of the first round). So a council, a vote or a debate of the last turn needs none of
its proposer calls again: a restyle is a redo of that turn, in its mode, in the new style, with
those proposals handed to `Engine.run(..., reuse=...)`. Only the new style's own calls are paid.

Pure functions of the session and its run records: the CLI and the app read them, the engine
runs the turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.chat.session import SessionData
from ensemble_tui.core.errors import EnsembleError

NO_TURN = "This chat has no turn to restyle yet - ask a question first."
# Each fits the status line at 80 columns (78 cells; tests/ui/test_status_messages_fit.py).
SINGLE = "{mode} answered alone: no proposals to restyle. Redo the turn with All."
NO_PROPOSALS = "The last turn stopped before any proposal came back: redo it instead."
NO_RECORD = "The last turn's run record is not in the archive: redo it instead."


class RestyleRefused(EnsembleError):
    """The last turn cannot be restyled; the message says why in one line."""


@dataclass(frozen=True)
class RestyleSource:
    """The run a restyle starts from: its mode, style, first proposals and number in the chat."""

    mode: Mode
    style: Style
    proposals: dict[str, str]  # model label -> its first proposal, in the order they were asked
    run: int  # 1 for the chat's first run, as the run report and the exports count them
    made_by: int = 0  # the run whose proposer calls wrote the proposals (a restyle's own source); 0: `run`

    @property
    def origin(self) -> int:
        """The run that made the proposals: a restyle of a restyle reuses the first one's."""
        return self.made_by or self.run


@dataclass(frozen=True)
class RestylePlan:
    """What `Engine.run` is given: the last turn's mode, the new style, the proposals to reuse."""

    mode: Mode
    style: Style
    reuse: dict[str, str]
    reused_from: int  # the run whose proposals these are

    @property
    def calls_saved(self) -> int:
        """Each reused proposal is a proposer call not made again."""
        return len(self.reuse)


def last_proposals(record: TurnRecord) -> dict[str, str]:
    """A run's first round of answers (model -> text): the proposals before any resynthesis or
    debate revised them, which is what every style starts from. Empty when none came back."""
    answers = [artifact for artifact in record.artifacts if artifact.kind == "answer" and artifact.text.strip()]
    if not answers:
        return {}
    first = min(artifact.round for artifact in answers)
    return {artifact.author: artifact.text for artifact in answers if artifact.round == first}


def restyle_source(session: SessionData, records: Sequence[TurnRecord]) -> RestyleSource:
    """The last turn of the chat and its proposals; raises RestyleRefused (one line) when there
    is no turn, it was a single model's, or no proposal of it came back.

    The last turn is the run a redo would redo: the newest run that left something in the chat,
    asked the question a redo asks again. A cancelled run leaves nothing; nor does a failed redo
    (the reply it meant to replace stays), so a chat that ends with a reply is restyled from the
    run that wrote a reply.
    """
    question = session.pending_input or session.last_user_input
    if not question:
        raise RestyleRefused(NO_TURN)
    left = ("final",) if session.pending_input is None else ("final", "failed")
    number, record = next(
        ((n, r) for n, r in reversed(list(enumerate(records, start=1))) if r.outcome in left), (0, None)
    )
    if record is None or record.query != question:
        raise RestyleRefused(NO_RECORD)
    try:
        mode = Mode.parse(record.mode)
    except ValueError:  # an added provider's single run
        raise RestyleRefused(SINGLE.format(mode=record.mode)) from None
    if not mode.is_multi:
        raise RestyleRefused(SINGLE.format(mode=mode.label))
    proposals = last_proposals(record)
    if not proposals:
        raise RestyleRefused(NO_PROPOSALS)
    try:
        style = Style.parse(record.style)
    except ValueError:
        style = Style.AGGREGATE
    made_by = record.reused_from if record.calls_saved >= len(proposals) else 0  # none asked again in it
    return RestyleSource(mode, style, proposals, number, made_by)


def plan_restyle(session: SessionData, records: Sequence[TurnRecord], style: Style) -> RestylePlan:
    """The restyle of the last turn in `style` (raises RestyleRefused with one line if it cannot)."""
    source = restyle_source(session, records)
    return RestylePlan(source.mode, style, dict(source.proposals), source.origin)


def saved_line(calls_saved: int, reused_from: int) -> str:
    """ "3 proposer calls saved (reused from run 2)", as the run report shows it; "" for a run
    that reused nothing."""
    if not calls_saved:
        return ""
    calls = "call" if calls_saved == 1 else "calls"
    origin = f"reused from run {reused_from}" if reused_from else "proposals reused"
    return f"{calls_saved} proposer {calls} saved ({origin})"
