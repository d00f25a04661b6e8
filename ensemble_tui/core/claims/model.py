"""The claim map as the user sees it: claims, stances by model name, and their evidence.

The mapper answers with letters (`wire.py`); the app maps the letters back to model names and
adds the paper checks (`evidence.py`) and the confidence (`confidence.py`). Everything here is
plain data the UI, `ask --json` and the exports read; none of it is ever sent to a model.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from ensemble_tui.core.chat.runlog import Artifact
from ensemble_tui.core.claims.confidence import Confidence
from ensemble_tui.core.paper.quotes import FOUND_MARK, MISSING_MARK, NOT_IN_PAPER

ClaimKind = Literal["consensus", "contradiction", "partial", "unique"]
StanceKind = Literal["supports", "contradicts", "silent"]
KINDS: tuple[ClaimKind, ...] = ("consensus", "contradiction", "partial", "unique")
# The order the Claims view lists them in: disputed first.
DISPUTED_FIRST: dict[str, int] = {"contradiction": 0, "partial": 1, "unique": 2, "consensus": 3}


class Evidence(BaseModel):
    """The paper's words a proposal gives for its stance, checked against the PDF.

    `found` is None when nothing could be checked (no PDF, a scan, or a quote too short to
    place); `page` is where the words are in the PDF; `cited_page` the page the proposal named.
    """

    quote: str
    cited_page: int | None = None
    page: int | None = None
    found: bool | None = None

    @property
    def marker(self) -> str:
        """`✓ p. 3`, `✗ not in the paper`, or "" when unchecked."""
        if self.found is None:
            return ""
        return f"{FOUND_MARK} p. {self.page}" if self.found else f"{MISSING_MARK} {NOT_IN_PAPER}"


class Stance(BaseModel):
    """One model's position on a claim, with a short quote of its own words."""

    stance: StanceKind
    quote: str = ""
    evidence: Evidence | None = None


class Citation(BaseModel):
    """A place in the paper the proposals cite for a claim ("p. 3", "Table 1"); `found` None: unchecked."""

    text: str
    found: bool | None = None


def kind_of(stances: Sequence[StanceKind]) -> ClaimKind:
    """A claim's kind as its stances (one per proposal, silent ones included) show it, whatever
    the mapper labelled it: the confidence, and so auto mode's choice not to escalate, rest on it.

    Any proposal contradicting it makes it disputed; every proposal supporting it (two or more),
    agreed; one alone, unique; several but not all (or none), partial.
    """
    supports = sum(stance == "supports" for stance in stances)
    if any(stance == "contradicts" for stance in stances):
        return "contradiction"
    if supports == len(stances) and supports >= 2:
        return "consensus"
    return "unique" if supports == 1 else "partial"


class Claim(BaseModel):
    text: str
    kind: ClaimKind
    stances: dict[str, Stance] = Field(default_factory=dict)  # model (provider label) -> stance
    citations: list[Citation] = Field(default_factory=list)

    @property
    def rests_on_paper(self) -> bool:
        """Whether any stance gives the paper's words for it, or the claim cites a place in it."""
        return bool(self.citations) or any(s.evidence is not None for s in self.stances.values())


class ClaimMap(BaseModel):
    """One turn's map. `mapper` is the provider that drew it; `letters` which model each
    letter stood for in the mapper's request (for the run report; never sent to a model)."""

    claims: list[Claim] = Field(default_factory=list)
    confidence: Confidence = "low"
    mapper: str = ""
    model: str = ""
    letters: dict[str, str] = Field(default_factory=dict)
    paper_checked: bool = False  # False: no PDF, or one whose text cannot be read

    def count(self, kind: ClaimKind) -> int:
        return sum(1 for claim in self.claims if claim.kind == kind)

    @property
    def summary(self) -> str:
        """`4 agreed · 1 disputed · 2 unique · confidence medium` (partial ones named when any)."""
        parts = [f"{self.count('consensus')} agreed"]
        if self.count("partial"):
            parts.append(f"{self.count('partial')} partial")
        parts += [f"{self.count('contradiction')} disputed", f"{self.count('unique')} unique"]
        return " · ".join([*parts, f"confidence {self.confidence}"])

    def disputed_first(self) -> list[Claim]:
        """Contradictions, then partial, unique and consensus claims, each kind in map order."""
        return sorted(self.claims, key=lambda claim: DISPUTED_FIRST[claim.kind])


def claims_of(artifacts: Sequence[Artifact]) -> ClaimMap | None:
    """A run's map from its record (its last `claims` artifact not superseded by a later pass's;
    None if that one says the map was left out), for reports and exports."""
    for artifact in reversed(artifacts):
        if artifact.kind != "claims" or artifact.data.get("superseded"):
            continue
        if isinstance(artifact.data.get("map"), dict):  # the turn's map; else it was left out
            with contextlib.suppress(ValueError):
                return ClaimMap.model_validate(artifact.data["map"])
        return None
    return None
