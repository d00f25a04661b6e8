"""Reading the aggregator's first line: a final reply, or a request for another round."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

RESYNTHESIS_SENTINEL = "REQUEST SYNTHESIS FROM PROPOSERS"
FINAL_SENTINEL = "FINAL"
# Markdown decoration a model may put around the sentinel: **FINAL REPLY:**, # FINAL, > ...
_DECORATION = re.compile(r"[*_`#>~]")
_FINAL_PREFIX = re.compile(r"^\W*final(?:\s+reply|\s+answer)?\s*[:\-\u2013\u2014]?\s*", re.IGNORECASE)


@dataclass(frozen=True)
class AggregatorVerdict:
    kind: Literal["final", "resynthesize"]
    text: str  # the final reply, or the aggregator's remarks for the proposers


def parse_verdict(output: str) -> AggregatorVerdict:
    """Decide from the first non-empty line, case-insensitively.

    A line containing REQUEST SYNTHESIS FROM PROPOSERS starts a new round (its remarks are the
    rest); a line containing FINAL makes the rest the reply (text after `FINAL REPLY:` on the
    same line is kept); any other output is taken whole as the final reply.
    """
    lines = output.strip().splitlines()
    if not lines:
        return AggregatorVerdict("final", "")
    first = lines[0]
    rest = "\n".join(lines[1:]).strip()
    plain = _DECORATION.sub("", first).strip()
    upper = plain.upper()
    if RESYNTHESIS_SENTINEL in upper:
        return AggregatorVerdict("resynthesize", rest)
    if FINAL_SENTINEL in upper:
        same_line = _FINAL_PREFIX.sub("", plain, count=1).strip() if upper.lstrip(" :").startswith("FINAL") else ""
        return AggregatorVerdict("final", "\n".join(part for part in (same_line, rest) if part))
    return AggregatorVerdict("final", output.strip())
