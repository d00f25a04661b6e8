"""The map as the user sees it: letters back to model names, every paper quote and cited place
checked against the PDF with the quote checker's index, and the confidence.

Blocking (the paper's index may be read from disk): run `resolve` in a worker thread.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ensemble_tui.core.claims.confidence import ConfidenceInputs, confidence
from ensemble_tui.core.claims.model import Citation, Claim, ClaimMap, Evidence, Stance, kind_of
from ensemble_tui.core.claims.wire import WireMap, WireStance
from ensemble_tui.core.paper.paper_index import PaperIndex, paper_index
from ensemble_tui.core.paper.pdf_pages import PdfTextUnavailable
from ensemble_tui.core.paper.quotes import check_quotes, quote_parts
from ensemble_tui.core.text.sanitize import strip_control

log = logging.getLogger(__name__)

MIN_EVIDENCE_WORDS = 3  # fewer words would be found anywhere: left unchecked


def resolve(
    wire: WireMap, by_letter: dict[str, str], pdf: Path | None, cache_dir: Path, *, mapper: str = "", model: str = ""
) -> ClaimMap:
    """The user's map from the mapper's: stances keyed by model, evidence checked, confidence set."""
    index = _index(pdf, cache_dir)
    claims = [_claim(claim.text, claim.kind, claim.stances, claim.citations, by_letter, index) for claim in wire.claims]
    return finish(
        ClaimMap(claims=claims, mapper=mapper, model=model, letters=dict(by_letter), paper_checked=index is not None)
    )


def finish(claim_map: ClaimMap) -> ClaimMap:
    """The map with its confidence computed by the rule (`confidence.py`) from its claims."""
    checked = missing = 0
    for claim in claim_map.claims:
        if not claim.rests_on_paper:
            continue
        for stance in claim.stances.values():
            if stance.evidence is not None and stance.evidence.found is not None:
                checked += 1
                missing += not stance.evidence.found
    inputs = ConfidenceInputs(
        claims=len(claim_map.claims),
        consensus=claim_map.count("consensus"),
        contradictions=claim_map.count("contradiction"),
        quotes_checked=checked,
        quotes_missing=missing,
    )
    return claim_map.model_copy(update={"confidence": confidence(inputs)})


def _index(pdf: Path | None, cache_dir: Path) -> PaperIndex | None:
    if pdf is None:
        return None
    try:
        index = paper_index(pdf, cache_dir)
    except PdfTextUnavailable:
        return None
    except Exception:  # a bug in the index must not cost the map
        log.exception("paper index failed")
        return None
    return None if index.notice else index


def _claim(
    text: str,
    kind: str,
    stances: list[WireStance],
    citations: list[str],
    by_letter: dict[str, str],
    index: PaperIndex | None,
) -> Claim:
    by_model: dict[str, Stance] = {}
    for stance in stances:
        author = by_letter[stance.letter]
        if author in by_model:
            continue  # a letter named twice: its first stance counts
        by_model[author] = Stance(stance=stance.stance, quote=_clean(stance.quote), evidence=_evidence(stance, index))
    for author in by_letter.values():  # a proposal the mapper left out is silent on it
        by_model.setdefault(author, Stance(stance="silent"))
    derived = kind_of([stance.stance for stance in by_model.values()])
    if derived != kind:
        log.warning("claim map: a claim labelled %s has the stances of a %s claim; read as %s", kind, derived, derived)
    return Claim(
        text=_clean(text),
        kind=derived,
        stances=by_model,
        citations=[_citation(place, index) for place in dict.fromkeys(_clean(c) for c in citations) if place],
    )


def _evidence(stance: WireStance, index: PaperIndex | None) -> Evidence | None:
    quote = _clean(stance.paper_quote)
    if not quote and stance.page is None:
        return None
    evidence = Evidence(quote=quote, cited_page=stance.page)
    if index is None or len(quote.split()) < MIN_EVIDENCE_WORDS:
        if index is not None and not quote and stance.page is not None:
            return evidence.model_copy(update={"found": index.has_page(stance.page), "page": stance.page})
        return evidence
    page = index.page_of(quote_parts(quote))
    return evidence.model_copy(update={"page": page, "found": page is not None})


def _citation(place: str, index: PaperIndex | None) -> Citation:
    """A cited place ("p. 3", "Table 1") checked as the quote checker checks a reference; a
    place it does not recognise stays unchecked."""
    if index is None:
        return Citation(text=place)
    references = check_quotes(place, index).references
    return Citation(text=place, found=all(ref.found for ref in references) if references else None)


def _clean(text: str) -> str:
    """Model text for display: control characters (terminal escapes) out, spacing collapsed."""
    return " ".join(strip_control(text).split())
