"""Borda count with self-exclusion, score tie-breakers, shared ranks and medals."""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import fmean


@dataclass(frozen=True)
class Ballot:
    """One reviewer's ranking of the other authors' answers (own answer already excluded)."""

    reviewer: str
    ranking: tuple[str, ...]  # authors, best first
    overall: dict[str, float] = field(default_factory=dict)  # author -> 0-10, when the style scores
    correctness: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Standing:
    author: str
    rank: int  # 1-based; tied answers share a rank
    points: float
    first_places: int
    mean_overall: float | None
    mean_correctness: float | None


def _mean(values: list[float]) -> float | None:
    return fmean(values) if values else None


def borda_count(ballots: list[Ballot], authors: list[str]) -> list[Standing]:
    """Standings, best first.

    A ballot of n answers gives n-1 points to its first place down to 0 for its last, so a
    reviewer who may not rank its own answer shares its points among the rest. Equal points are
    broken by the higher mean overall score, then the higher mean correctness; answers still
    equal share the rank.
    """
    points = dict.fromkeys(authors, 0.0)
    firsts = dict.fromkeys(authors, 0)
    overall: dict[str, list[float]] = {author: [] for author in authors}
    correctness: dict[str, list[float]] = {author: [] for author in authors}
    for ballot in ballots:
        size = len(ballot.ranking)
        for position, author in enumerate(ballot.ranking):
            points[author] = points.get(author, 0.0) + (size - 1 - position)
        if ballot.ranking:
            firsts[ballot.ranking[0]] = firsts.get(ballot.ranking[0], 0) + 1
        for author, score in ballot.overall.items():
            overall.setdefault(author, []).append(score)
        for author, score in ballot.correctness.items():
            correctness.setdefault(author, []).append(score)

    def key(author: str) -> tuple[float, float, float]:
        mean_overall = _mean(overall.get(author, []))
        mean_correct = _mean(correctness.get(author, []))
        return (
            -points[author],
            -(mean_overall if mean_overall is not None else float("-inf")),
            -(mean_correct if mean_correct is not None else float("-inf")),
        )

    ordered = sorted(authors, key=lambda author: (key(author), authors.index(author)))
    standings: list[Standing] = []
    for index, author in enumerate(ordered):
        shares_rank = index > 0 and key(author) == key(ordered[index - 1])
        rank = standings[-1].rank if shares_rank else index + 1
        standings.append(
            Standing(
                author,
                rank,
                points[author],
                firsts.get(author, 0),
                _mean(overall.get(author, [])),
                _mean(correctness.get(author, [])),
            )
        )
    return standings


MEDALS = ("gold", "silver", "bronze")


def medals(standings: list[Standing]) -> dict[str, str]:
    """Gold, silver and bronze for the top three distinct point totals; ties share a medal."""
    levels = sorted({standing.points for standing in standings}, reverse=True)[: len(MEDALS)]
    return {
        standing.author: MEDALS[levels.index(standing.points)] for standing in standings if standing.points in levels
    }
