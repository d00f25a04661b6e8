"""Reading a `FINAL RANKING:` list, and aggregating ballots by average position."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_HEADER = re.compile(r"^[ \t>#*_`]*final[ \t]+ranking[ \t*_`]*:?[*_`]*(.*)$", re.IGNORECASE | re.MULTILINE)
_MARKUP = re.compile(r"[*_`]")
_WORD = r"(?:(?i:answer|response|agent|reply|proposal)\s+)?"
# "1. Answer C is the clearest", "2) B", "- C": a list marker, then the label; anything may follow.
_LISTED = re.compile(r"^(?:\d+\s*[.):\-]|[-•])\s*" + _WORD + r"([A-Z])\b(?![''])")
# "C", "Answer C - best", "C: clear": no list marker, so only punctuation may follow the label.
_BARE = re.compile(r"^" + _WORD + r"([A-Z])(?=\s*$|\s*[-\u2013\u2014:(.,])")
_INLINE_SEPARATOR = re.compile(r"\s*(?:>|,|;)\s*")


class RankingParseError(ValueError):
    """The ranking is missing, lists an unknown or duplicate label, or leaves one out."""


def _label_in(line: str) -> str | None:
    plain = _MARKUP.sub("", line).strip()
    match = _LISTED.match(plain) or _BARE.match(plain)
    return match.group(1) if match else None


def _ranked_labels(header_rest: str, following: list[str]) -> list[str]:
    inline = [piece for piece in _INLINE_SEPARATOR.split(_MARKUP.sub("", header_rest).strip()) if piece]
    if inline:
        return [label for piece in inline if (label := _label_in(piece))]
    found: list[str] = []
    for line in following:
        label = _label_in(line)
        if label:
            found.append(label)
        elif found and line.strip():
            break  # the list has ended; later text is not part of the ranking
        elif found and not line.strip():
            break
    return found


def parse_final_ranking(text: str, labels: tuple[str, ...]) -> list[str]:
    """The labels in ranked order, read only from after the last `FINAL RANKING:` header.

    Accepts numbered lists, bullets, `Answer C` / `Response C` / bare `C`, bold and code marks,
    and a one-line `C > A > B` or `C, A, B`. Labels in the critique text before the header are
    never used. Every label must appear exactly once.
    """
    headers = list(_HEADER.finditer(text))
    if not headers:
        raise RankingParseError("no FINAL RANKING section")
    header = headers[-1]
    found = _ranked_labels(header.group(1), text[header.end() :].splitlines())
    unknown = [label for label in found if label not in labels]
    if unknown:
        raise RankingParseError(f"unknown label {unknown[0]}")
    duplicates = sorted({label for label in found if found.count(label) > 1})
    if duplicates:
        raise RankingParseError(f"label {duplicates[0]} ranked twice")
    missing = [label for label in labels if label not in found]
    if missing:
        raise RankingParseError(f"label {missing[0]} not ranked")
    return found


@dataclass(frozen=True)
class AveragePosition:
    author: str
    average: float
    ballots: int


def average_positions(ballots: list[list[str]], authors: list[str]) -> list[AveragePosition]:
    """Mean 1-based position of each author over the ballots that ranked it, best first.

    Ballots are author lists (already de-anonymised). Authors that no ballot ranked come last.
    """
    positions: dict[str, list[int]] = {author: [] for author in authors}
    for ballot in ballots:
        for index, author in enumerate(ballot, start=1):
            positions.setdefault(author, []).append(index)
    results = [
        AveragePosition(author, sum(ranks) / len(ranks) if ranks else float("inf"), len(ranks))
        for author, ranks in positions.items()
    ]
    return sorted(results, key=lambda item: (item.average, -item.ballots, authors.index(item.author)))


def shared_places(averages: Sequence[float | None]) -> list[int]:
    """The place of each average, best first: a tie shares its place (1, 1, 3), so two answers
    at the same average position are never shown as first and second. None (no ballot) is last."""
    keyed = [float("inf") if average is None else average for average in averages]
    return [1 + sum(other < mine for other in keyed) for mine in keyed]
