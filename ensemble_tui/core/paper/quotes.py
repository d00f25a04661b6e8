"""Quotations and references in a reply, checked against the paper's text.

A quotation is a passage of at least six words in double quotes (straight or curly) or a
Markdown blockquote; text in code spans and fences is never one. It is found when its letters and
numbers occur in the paper in the same order (`paper_index` says what is ignored); an ellipsis or
an editorial insertion in brackets ("[…]", "[the model]") matches any gap. References to pages
that the PDF does not have, and to tables, figures, sections and equations its text never
mentions, are marked too. Nothing leaves the machine; a 5,000-word reply against a 300-page paper
takes a few milliseconds once the index is built (bench row 7).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ensemble_tui.core.paper.paper_index import GAP, PaperIndex, label_id, paper_index, quote_parts
from ensemble_tui.core.paper.pdf_pages import PdfTextUnavailable
from ensemble_tui.core.text.sanitize import strip_control

if TYPE_CHECKING:
    from ensemble_tui.core.paper.passage import PaperText

MIN_WORDS = 6
FOUND_MARK = "✓"
MISSING_MARK = "✗"
NOT_IN_PAPER = "not in the paper"
PREVIEW_WORDS = 8

ReferenceKind = Literal["page", "table", "figure", "section", "equation"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:[^\n]|\n(?![ \t]*\n))+?)(?<!`)\1(?!`)")
_DOUBLE_QUOTED = re.compile(r"“((?:[^“”\n]|\n(?![ \t>]*\n))+?)”|\"((?:[^\"\n]|\n(?![ \t>]*\n))+?)\"")
_BLOCKQUOTE_LINE = re.compile(r"^ {0,3}>.*$", re.MULTILINE)
_BLOCKQUOTE_MARKERS = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE)
_ATTRIBUTION_LINE = re.compile(r"^\s*(?:—|–|--|-)\s*\S.*$", re.MULTILINE)
_TRAILING_CITATION = re.compile(r"\s*\((?:p|pp|page|pages|section|sec|§|table|fig|figure)\b[^()]*\)\W*$", re.I)

_PAGE_REF = re.compile(r"\b(?:pp?\.|pages?\b)\s*(\d{1,5})(?:\s*(?:[-–—]|to)\s*(\d{1,5}))?\b", re.I)
_TABLE_REF = re.compile(r"\btable\s+([a-z]?\d+|(?-i:[IVXL]+))\b", re.I)
_FIGURE_REF = re.compile(r"\b(?:figure|fig\.)\s*([a-z]?\d+)[a-z]?\b", re.I)
_SECTION_REF = re.compile(r"(?:\bsection|\bsec\.|§)\s*(\d+(?:\.\d+)*)(?!\.?\d)", re.I)
_EQUATION_REF = re.compile(r"\b(?:eqs?\.|equation)\s*\(?(\d+(?:\.\d+)?)[a-z]?\)?", re.I)


@dataclass(frozen=True)
class Quotation:
    """One passage the reply presents as the paper's words; `start:end` spans it in the reply."""

    text: str  # as written, without the quote marks or `>` markers, spacing collapsed
    start: int
    end: int  # just after the closing quote mark, or at the end of the blockquote's last line


@dataclass(frozen=True)
class PassageRange:
    """Where a found quotation is: `start:end` of page `page`'s text as the paper view shows it
    (running headers and footers left out; core/paper/passage.py), for a tool to jump to."""

    page: int
    start: int
    end: int


@dataclass(frozen=True)
class QuoteCheck:
    quotation: Quotation
    page: int | None  # 1-based page of the PDF where it starts; None when not in the paper
    passage: PassageRange | None = None  # the words' character range, when found and located

    @property
    def found(self) -> bool:
        return self.page is not None

    @property
    def marker(self) -> str:
        return f"{FOUND_MARK} p. {self.page}" if self.page is not None else f"{MISSING_MARK} {NOT_IN_PAPER}"


@dataclass(frozen=True)
class ReferenceCheck:
    kind: ReferenceKind
    text: str  # as written: "pp. 3-4", "Table 9"
    start: int
    end: int
    found: bool

    @property
    def marker(self) -> str:
        return "" if self.found else f"{MISSING_MARK} {NOT_IN_PAPER}"


@dataclass(frozen=True)
class QuoteReport:
    """Every check of one reply, in the reply's order; `notice` instead when nothing can be checked."""

    quotes: tuple[QuoteCheck, ...] = ()
    references: tuple[ReferenceCheck, ...] = ()
    notice: str | None = None

    @property
    def missing_references(self) -> tuple[ReferenceCheck, ...]:
        return tuple(ref for ref in self.references if not ref.found)

    def as_record(self) -> dict[str, object]:
        """Plain data for the run record and exports: every check with its page."""
        return {
            "notice": self.notice,
            "quotes": [
                {
                    "text": c.quotation.text,
                    "start": c.quotation.start,
                    "end": c.quotation.end,
                    "page": c.page,
                    "passage": None if c.passage is None else vars(c.passage).copy(),
                }
                for c in self.quotes
            ],
            "references": [
                {"kind": r.kind, "text": r.text, "start": r.start, "end": r.end, "found": r.found}
                for r in self.references
            ],
        }

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> QuoteReport:
        """The report `as_record` wrote (kept with a reply, shown again after a restart)."""
        quotes = tuple(
            QuoteCheck(Quotation(q["text"], q["start"], q["end"]), q["page"], _passage_of(q.get("passage")))
            for q in data.get("quotes", [])
        )
        references = tuple(
            ReferenceCheck(r["kind"], r["text"], r["start"], r["end"], r["found"]) for r in data.get("references", [])
        )
        return cls(quotes, references, data.get("notice"))

    @property
    def all_found(self) -> bool:
        """Every quote and reference was found: nothing for the reader to be warned of (a notice
        says that nothing could be checked)."""
        return not self.notice and all(check.found for check in self.quotes) and not self.missing_references

    def summary(self) -> str:
        """One line, e.g. "Quotes: 3 checked, 2 found, 1 not in the paper"; "" when nothing to say."""
        if self.notice:
            return self.notice
        parts: list[str] = []
        if self.quotes:
            found = sum(check.found for check in self.quotes)
            line = f"Quotes: {len(self.quotes)} checked, {found} found"
            if found < len(self.quotes):
                line += f", {len(self.quotes) - found} {NOT_IN_PAPER}"
            parts.append(line)
        missing = self.missing_references
        if missing:
            names = ", ".join(dict.fromkeys(ref.text for ref in missing))
            noun = "reference" if len(missing) == 1 else "references"
            parts.append(f"{len(missing)} {noun} {NOT_IN_PAPER} ({names})")
        return "; ".join(parts)


def check_reply_against_pdf(reply: str, pdf: Path, cache_dir: Path) -> QuoteReport:
    """Check `reply` against `pdf`, its text read once per content into `cache_dir`.

    Blocking (pypdf on a paper's first check): run it in a worker thread. Never raises for the
    PDF's sake: a scan, an encrypted or an unreadable PDF gives a report whose `notice` says so.
    """
    return check_replies_against_pdf({"": reply}, pdf, cache_dir)[""]


def check_replies_against_pdf(replies: Mapping[str, str], pdf: Path, cache_dir: Path) -> dict[str, QuoteReport]:
    """`check_reply_against_pdf` for several texts (a turn's reply and proposals), by their keys.

    The paper is looked up once for all of them: each lookup hashes the PDF and reads its cached
    text (a few milliseconds), which a turn's dozen texts paid twice each, after its last call.
    """
    try:
        index = paper_index(pdf, cache_dir)
    except PdfTextUnavailable as exc:
        return {key: QuoteReport(notice=str(exc)) for key in replies}
    reports = {key: check_quotes(reply, index) for key, reply in replies.items()}
    if not any(check.found for report in reports.values() for check in report.quotes):
        return reports  # no passage to locate
    from ensemble_tui.core.paper.passage import read_paper_text  # it builds on this module

    try:
        paper = read_paper_text(pdf, cache_dir)  # built once per paper, with the index
    except PdfTextUnavailable as exc:  # the file changed since the index was read
        return {key: QuoteReport(notice=str(exc)) for key in replies}
    return {key: with_passages(report, paper) for key, report in reports.items()}


def with_passages(report: QuoteReport, paper: PaperText) -> QuoteReport:
    """`report` with each found quote's character range in its page (what the JSON exports give)."""
    if report.notice:
        return report
    checks = []
    for check in report.quotes:
        found = paper.exact(check.quotation.text) if check.found else None
        passage = PassageRange(found.page, found.start, found.end) if found is not None else None
        checks.append(QuoteCheck(check.quotation, check.page, passage))
    return QuoteReport(tuple(checks), report.references, report.notice)


def _passage_of(data: Mapping[str, Any] | None) -> PassageRange | None:
    if not data:
        return None
    return PassageRange(int(data["page"]), int(data["start"]), int(data["end"]))


def check_quotes(reply: str, index: PaperIndex) -> QuoteReport:
    """Check every quotation and reference of `reply` against the paper."""
    if index.notice:
        return QuoteReport(notice=index.notice)
    masked = mask_code(reply)
    quotations = find_quotations(reply, masked)
    checks = tuple(QuoteCheck(q, index.page_of(quote_parts(q.text))) for q in quotations)
    inside = [(q.start, q.end) for q in quotations]
    references = tuple(
        ref for ref in _references(masked, index) if not any(start <= ref.start < end for start, end in inside)
    )
    return QuoteReport(checks, references)


def mask_code(reply: str) -> str:
    """`reply` with fenced code blocks and code spans blanked out (same length, newlines kept)."""
    lines = reply.splitlines(keepends=True)
    out: list[str] = []
    fence: str | None = None
    for line in lines:
        opener = _FENCE.match(line)
        if fence is None and opener:
            fence = opener.group(1)
            out.append(_blank(line))
        elif fence is not None:
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                fence = None
            out.append(_blank(line))
        else:
            out.append(line)
    return _CODE_SPAN.sub(lambda m: _blank(m.group(0)), "".join(out))


def find_quotations(reply: str, masked: str | None = None) -> list[Quotation]:
    """The quotations of `reply` in order; `masked` is `mask_code(reply)` when already computed."""
    masked = mask_code(reply) if masked is None else masked
    found: list[Quotation] = []
    blocks = _blockquotes(masked)
    for start, end in blocks:
        inner = _double_quoted(reply, masked, start, end)
        if inner:
            found += inner
            continue
        body = _BLOCKQUOTE_MARKERS.sub("", reply[start:end])
        body = _TRAILING_CITATION.sub("", _ATTRIBUTION_LINE.sub("", body))
        text = " ".join(body.split())
        if _words(text) >= MIN_WORDS:
            found.append(Quotation(text, start, end))
    cursor = 0
    for start, end in [*blocks, (len(masked), len(masked))]:
        found += _double_quoted(reply, masked, cursor, start)
        cursor = end
    return sorted(found, key=lambda q: q.start)


def annotate_markdown(
    reply: str,
    report: QuoteReport,
    decorate: Callable[[str, bool], str] = lambda marker, found: marker,
    *,
    quote_mark: Callable[[str], str] = lambda marker: marker,
) -> str:
    """`reply` with each check's marker after its quotation or reference ("✓ p. 2", "✗ not in the paper").

    A quote the reply itself follows with its page ("…" (p. 1)) gets "✓" alone, not "✓ p. 1 (p. 1)".
    `decorate(marker, found)` may wrap a marker (e.g. in emphasis); found references get none.
    `quote_mark` wraps a quote's marker first (the chat's, to make it a way into the paper view).
    """
    inserts = [
        (check.quotation.end, decorate(quote_mark(_quote_marker(reply, check)), check.found)) for check in report.quotes
    ]
    inserts += [(ref.end, decorate(ref.marker, False)) for ref in report.missing_references]
    out = reply
    for position, marker in sorted(inserts, key=lambda item: item[0], reverse=True):
        out = f"{out[:position]} {marker}{out[position:]}"
    return out


def emphasised(marker: str, found: bool) -> str:
    """A marker as the chat and the exports write it in Markdown: found in italics, else in bold."""
    return f"*{marker}*" if found else f"**{marker}**"


def _quote_marker(reply: str, check: QuoteCheck) -> str:
    page = check.page
    names_page = page is not None and re.match(rf"\s*\((?:pp?\.|pages?)\s*{page}\b", reply[check.quotation.end :], re.I)
    return FOUND_MARK if names_page else check.marker


def stderr_lines(report: QuoteReport) -> list[str]:
    """What `ensemble-tui ask` prints per check: `quote ✓ p. 2: "<first words>…"`."""
    if report.notice:
        return [report.notice]
    lines = [f'quote {check.marker}: "{_preview(check.quotation.text)}"' for check in report.quotes]
    lines += [f"reference {ref.marker}: {_preview(ref.text)}" for ref in report.missing_references]
    return lines


def _preview(text: str) -> str:
    words = strip_control(text).split()
    if len(words) <= PREVIEW_WORDS:
        return " ".join(words)
    return " ".join(words[:PREVIEW_WORDS]).rstrip(",;:") + "…"


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _words(text: str) -> int:
    return sum(1 for word in GAP.sub(" ", text).split() if any(char.isalnum() for char in word))


def _blockquotes(masked: str) -> list[tuple[int, int]]:
    """Spans of runs of consecutive `>` lines (from the first `>` line's start to the last one's end)."""
    spans: list[tuple[int, int]] = []
    for match in _BLOCKQUOTE_LINE.finditer(masked):
        if spans and masked[spans[-1][1] : match.start()] == "\n":
            spans[-1] = (spans[-1][0], match.end())
        else:
            spans.append((match.start(), match.end()))
    return spans


def _double_quoted(reply: str, masked: str, start: int, end: int) -> list[Quotation]:
    found: list[Quotation] = []
    for match in _DOUBLE_QUOTED.finditer(masked, start, end):
        group = 1 if match.group(1) is not None else 2
        raw = reply[match.start(group) : match.end(group)]
        text = " ".join(_BLOCKQUOTE_MARKERS.sub("", raw).split())
        if _words(text) >= MIN_WORDS:
            found.append(Quotation(text, match.start(), match.end()))
    return found


def _references(masked: str, index: PaperIndex) -> list[ReferenceCheck]:
    labels = index.labels
    refs: list[ReferenceCheck] = []
    for match in _PAGE_REF.finditer(masked):
        pages = [int(group) for group in match.groups() if group]
        refs.append(_ref("page", match, all(index.has_page(page) for page in pages)))
    for match in _TABLE_REF.finditer(masked):
        refs.append(_ref("table", match, label_id(match.group(1)) in labels.tables))
    for match in _FIGURE_REF.finditer(masked):
        refs.append(_ref("figure", match, label_id(match.group(1)) in labels.figures))
    for match in _SECTION_REF.finditer(masked):
        refs.append(_ref("section", match, match.group(1) in labels.sections))
    for match in _EQUATION_REF.finditer(masked):
        refs.append(_ref("equation", match, match.group(1) in labels.equations))
    return sorted(refs, key=lambda ref: ref.start)


def _ref(kind: ReferenceKind, match: re.Match[str], found: bool) -> ReferenceCheck:
    return ReferenceCheck(kind, " ".join(match.group(0).split()), match.start(), match.end(), found)
