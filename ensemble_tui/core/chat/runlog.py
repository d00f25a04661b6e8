"""The record of one run: its calls, timings, costs and what it produced, kept in the archive."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from ensemble_tui.core.provider import Usage


@dataclass
class CallRecord:
    provider: str
    model: str
    role: str
    attempt: int
    latency_s: float
    outcome: str  # "ok" or the error message
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    started_s: float = 0.0  # when the attempt was sent, seconds after the turn's caller was made
    estimated: bool = False  # abandoned after it was sent: its cost is its input alone, estimated


@dataclass
class Artifact:
    """Something a turn produced that the run report shows: an answer, a review, a vote."""

    kind: str  # answer, resubmission, aggregation, review, vote, final
    author: str  # the model, or "" for the engine's own tallies
    text: str
    round: int = 0
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class TurnRecord:
    session: str
    mode: str
    style: str = "aggregate"
    query: str = ""
    started_at: str = field(default_factory=lambda: datetime.now().isoformat(timespec="seconds"))
    outcome: str = "running"
    proposers_s: list[float] = field(default_factory=list)  # one figure per proposal round
    aggregator_s: list[float] = field(default_factory=list)  # one figure per aggregator pass
    calls: list[CallRecord] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    turn_cost_usd: float = 0.0
    session_cost_usd: float = 0.0
    simulated: bool = False  # a demo's run: its costs are what real providers would charge
    # A run that started from proposals already in hand (a restyle, core/records/restyle.py):
    # how many proposer calls they stood in for, and the chat's run (1-based) they came from.
    calls_saved: int = 0
    reused_from: int = 0  # 0: none, or proposals from outside this chat's runs

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
