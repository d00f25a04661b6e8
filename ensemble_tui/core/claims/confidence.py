"""The confidence of a reply, from its claim map alone: never from a model's own statement.

The one rule (README.md, "Confidence", has an example):

- **low** when there are no claims, when fewer than 30 % of the claims are consensus, when
  the contradictions outnumber the consensus claims, or when more than half of the paper
  quotes checked for the claims that rest on the paper are not in it;
- **high** when at least 60 % of the claims are consensus, none is a contradiction, and every
  paper quote checked was found;
- **medium** otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Confidence = Literal["high", "medium", "low"]

HIGH_CONSENSUS_SHARE = 0.6
LOW_CONSENSUS_SHARE = 0.3
LOW_MISSING_SHARE = 0.5


@dataclass(frozen=True)
class ConfidenceInputs:
    """What the rule reads: claim counts by kind, and the paper checks of the claims resting on
    the paper (quotes checked, and of those, not found)."""

    claims: int
    consensus: int
    contradictions: int
    quotes_checked: int = 0
    quotes_missing: int = 0


def confidence(inputs: ConfidenceInputs) -> Confidence:
    """The rule above, as a pure function."""
    if inputs.claims <= 0:
        return "low"
    share = inputs.consensus / inputs.claims
    missing = inputs.quotes_missing / inputs.quotes_checked if inputs.quotes_checked else 0.0
    if share < LOW_CONSENSUS_SHARE or inputs.contradictions > inputs.consensus or missing > LOW_MISSING_SHARE:
        return "low"
    if share >= HIGH_CONSENSUS_SHARE and inputs.contradictions == 0 and inputs.quotes_missing == 0:
        return "high"
    return "medium"
