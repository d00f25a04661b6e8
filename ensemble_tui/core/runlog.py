"""Per-turn timings and cost counters, one JSON line per turn, one file per session."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ensemble_tui.core.atomic import atomic_write_text
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

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def append_turn(log_dir: Path, record: TurnRecord) -> None:
    """Add one line to `Logs/<session>.jsonl`, rewriting the file atomically (it stays small)."""
    path = log_dir / f"{record.session}.jsonl"
    try:
        existing = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        existing = ""
    if existing and not existing.endswith("\n"):
        existing += "\n"
    line = record.to_json()
    line.pop("artifacts")  # the texts go to the archive; this log keeps timings and costs
    atomic_write_text(path, existing + json.dumps(line, ensure_ascii=False) + "\n")
