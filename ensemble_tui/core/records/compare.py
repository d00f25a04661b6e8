"""The proposals of one run, round by round, as the Compare view lays them side by side.

Pure data from a TurnRecord: each round's answers (first proposals, resynthesis or debate
rounds), each headed by its model, the latency and cost of the calls that wrote it, and, for
council, vote and debate runs, its place in the tally. The UI only draws what this gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ensemble_tui.core.chat.runlog import Artifact, CallRecord, TurnRecord
from ensemble_tui.core.turn.styles.ranking import shared_places

MEDALS = {"gold": "🥇 gold", "silver": "🥈 silver", "bronze": "🥉 bronze"}
PROPOSING_ROLES = ("proposer", "single")


@dataclass(frozen=True)
class Proposal:
    author: str  # the provider's label, e.g. "Claude"
    model: str  # the model id its calls used; "" when no call was recorded
    text: str
    latency_s: float
    cost_usd: float
    calls: int  # the calls (retries included) the figures add up
    whole_run: bool  # the figures cover all of this model's proposing calls, not this round's alone
    standing: str  # "rank 1 · 7 points", "🥇 gold · 7 points", "place 1 · average 1.50"; "" if none
    reused_from: int = 0  # a restyle's proposal: the run that made it (no call in this run)

    @property
    def figures(self) -> str:
        """ "4.20 s · $0.0012", with "(all rounds)" when they cannot be told apart by round;
        "reused from run 2 · no call" for a restyle's proposal."""
        if not self.calls:
            return f"reused from run {self.reused_from} · no call" if self.reused_from else "no calls recorded"
        line = f"{self.latency_s:.2f} s · ${self.cost_usd:.4f}"
        return line + " (all rounds)" if self.whole_run else line


@dataclass(frozen=True)
class CompareRound:
    number: int
    title: str  # "First proposals", "Resynthesis 1", "Debate round 2"
    proposals: tuple[Proposal, ...]
    outcome: str = "final"  # the run's, as the run report gives it: "final", "cancelled", "failed"

    @property
    def mark(self) -> str:
        """ "cancelled" or "failed" for a run that gave no final reply (so its proposals are not
        mistaken for a finished run's); "" otherwise."""
        return self.outcome if self.outcome in ("cancelled", "failed") else ""


def compare_rounds(record: TurnRecord) -> list[CompareRound]:
    """The run's proposal rounds in order; empty when the run produced no answer."""
    answers = [a for a in record.artifacts if a.kind == "answer"]
    numbers = sorted({a.round for a in answers})
    standings = _standings(record.artifacts) if numbers else {}
    requests = {author: _requests(record.calls, author) for author in {a.author for a in answers}}
    rounds: list[CompareRound] = []
    for position, number in enumerate(numbers):
        last = position == len(numbers) - 1
        proposals = []
        for answer in (a for a in answers if a.round == number):
            mine = requests[answer.author]
            answered = [n for n in numbers if any(a.author == answer.author and a.round == n for a in answers)]
            per_round = len(mine) == len(answered)
            calls = mine[answered.index(number)] if per_round else [c for request in mine for c in request]
            proposals.append(
                Proposal(
                    author=answer.author,
                    model=calls[-1].model if calls else "",
                    text=answer.text,
                    latency_s=sum(c.latency_s for c in calls),
                    cost_usd=sum(c.cost_usd for c in calls),
                    calls=len(calls),
                    whole_run=not per_round and len(answered) > 1,
                    standing=standings.get(answer.author, "") if last else "",
                    reused_from=record.reused_from if position == 0 and not calls else 0,
                )
            )
        rounds.append(CompareRound(number, _title(record.style, position), tuple(proposals), record.outcome))
    return rounds


def _title(style: str, position: int) -> str:
    if position == 0:
        return "First proposals"
    return f"Debate round {position + 1}" if style == "debate" else f"Resynthesis {position}"


def _requests(calls: list[CallRecord], author: str) -> list[list[CallRecord]]:
    """The author's proposing calls grouped per request (a request's retries stay together)."""
    requests: list[list[CallRecord]] = []
    for call in calls:
        if call.provider != author or call.role not in PROPOSING_ROLES:
            continue
        if call.attempt <= 1 or not requests:
            requests.append([])
        requests[-1].append(call)
    return requests


def _standings(artifacts: list[Artifact]) -> dict[str, str]:
    """Each author's place in the run's last tally, as one short line."""
    votes = [a for a in artifacts if a.kind == "vote"]
    if not votes:
        return {}
    data: dict[str, Any] = votes[-1].data
    lines: dict[str, str] = {}
    positions = data.get("positions") or []
    for place, position in zip(shared_places([p.get("average") for p in positions]), positions, strict=True):
        average = position.get("average")
        lines[position["author"]] = f"place {place}" + ("" if average is None else f" · average {average:.2f}")
    medals = data.get("medals") or {}
    for standing in data.get("standings") or []:
        author = standing["author"]
        points = f"{standing['points']:g} points"
        medal = MEDALS.get(medals.get(author, ""), "")
        lines[author] = f"{medal} · {points}" if medal else f"rank {standing['rank']} · {points}"
    return lines
