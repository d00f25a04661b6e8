"""A count and its noun, in the number the count calls for."""

from __future__ import annotations


def plural(count: int, noun: str, after: str = "") -> str:
    """`1 disputed claim`, `2 disputed claims`; with `after`, one reads `a quote not in the paper`."""
    head = ("a" if after else "1") + f" {noun}" if count == 1 else f"{count} {noun}s"
    return f"{head} {after}".strip()
