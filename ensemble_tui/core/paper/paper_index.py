"""The paper's text normalised once into one searchable string, so each quotation is a find.

The rule a quotation is held to, in one sentence: compare letters and numbers only, ignoring
case, accents, spacing, line breaks, punctuation, quote marks, dashes and hyphens; every number
must be the same number, whole. That survives what PDFs do to text (a word hyphenated across
lines, ligatures such as "ﬁ", curly apostrophes, spaces lost or doubled by the extraction) while
a changed figure ("87" for "78"), an added or dropped word, or a paraphrase still differs.

So each page becomes its letters and digits run together ("Aggregation, one pass 83 6.2" gives
"aggregationonepass83#6.2": a `#` keeps neighbouring numbers apart, a decimal point stays), and
the pages are joined into one string with their start offsets. Page headers and footers (bare page
numbers, and first or last lines repeated on many pages) are left out, so a quotation running
over a page break is found as if the page were not there; so are numeric citations ("[12]"),
which a quotation often drops. Labels a reply may cite (tables,
figures, sections, equations) and printed page numbers are collected at the same time.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ensemble_tui.core.paper.pdf_pages import PageTexts, read_page_texts

TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_NUMBER_EDGE = frozenset("0123456789.,")  # a char that continues a number token in the index
_PAGE_NUMBER_LINE = re.compile(r"(?:page\s+)?(\d{1,5}|[ivx]{1,6})(?:\s*(?:/|of)\s*\d{1,5})?")
NUMERIC_CITATION = re.compile(r"\[\d+(?:\s*[,;–-]\s*\d+)*\]")  # "[12]", "[3, 7]", "[4–6]"
GAP = re.compile(r"…|\.\s?\.\s?\.|\[[^\]\n]*\]")  # in a quotation: an ellipsis or an [insertion], any gap
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}

_TABLE = re.compile(r"\btables?\s*([a-z]?\d+|[ivxl]{1,6})\b")
_FIGURE = re.compile(r"\bfig(?:ure)?s?\.?\s*([a-z]?\d+)")
_SECTION = re.compile(r"(?:\bsections?|\bsec\.?|§)\s*(\d+(?:\.\d+)*)")
_HEADING = re.compile(r"^\s*(\d+(?:\.\d+)*)\.?\s+[^\W\d_]", re.MULTILINE)
_EQUATION = re.compile(r"\((\d+(?:\.\d+)?)[a-z]?\)|\beq(?:uation)?s?\.?\s*\(?(\d+(?:\.\d+)?)")


def fold(text: str) -> str:
    """Ligatures and other compatibility forms spelled out (NFKD), accents dropped, case folded."""
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text)).casefold()


def compact(text: str) -> str:
    """`text`'s letters and numbers run together, a `#` between two numbers (see the module doc)."""
    parts: list[str] = []
    after_number = False
    for token in TOKEN.findall(fold(text)):
        is_number = token[0].isdigit()
        if is_number and after_number:
            parts.append("#")
        parts.append(token)
        after_number = is_number
    return "".join(parts)


def quote_parts(text: str) -> list[str]:
    """The compact pieces a quotation must show in order: split at ellipses and [insertions]."""
    return [part for part in (compact(piece) for piece in GAP.split(text)) if part]


def label_id(raw: str) -> str:
    """A table or figure number as one spelling: roman numerals ("II") become arabic ("2")."""
    raw = raw.casefold()
    if raw and all(char in _ROMAN for char in raw):
        values = [_ROMAN[char] for char in raw]
        return str(sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values)))
    return raw


@dataclass(frozen=True)
class PaperLabels:
    """What the paper's text mentions: table, figure, section and equation numbers."""

    tables: frozenset[str]
    figures: frozenset[str]
    sections: frozenset[str]
    equations: frozenset[str]


@dataclass(frozen=True)
class PaperIndex:
    """The whole paper as one compact string, with where each page starts in it."""

    text: str
    page_starts: tuple[int, ...]  # offset in `text` of each page's first character; page 1 first
    labels: PaperLabels
    printed_pages: frozenset[str]  # page numbers printed on the pages or given as page labels
    notice: str | None = None  # set when there is nothing to check against (a scan)

    @property
    def page_count(self) -> int:
        return len(self.page_starts)

    def page_at(self, offset: int) -> int:
        """The page (1-based) holding `offset` of `text`."""
        return max(1, bisect.bisect_right(self.page_starts, offset))

    def has_page(self, number: int) -> bool:
        return 1 <= number <= self.page_count or str(number) in self.printed_pages

    def page_of(self, parts: Sequence[str]) -> int | None:
        """The page where the compact `parts` start (see `find_parts`), or None when not in the paper."""
        offset = self.find_parts(parts)
        return None if offset is None else self.page_at(offset)

    def find_parts(self, parts: Sequence[str]) -> int | None:
        """Where the compact `parts` occur in this order (any gap between them), or None.

        The offset returned is the first part's, in the tightest run: the first parts are taken
        as close as possible before the last one, so the page reported is the quotation's.
        """
        span = self.find_span(parts)
        return None if span is None else span[0]

    def find_span(self, parts: Sequence[str]) -> tuple[int, int] | None:
        """`find_parts`'s run as `start, end` of `text` (the end just after the last part), or None."""
        if not parts:
            return None
        ends: list[int] = []
        position = 0
        for part in parts:  # leftmost occurrence of each part after the previous one
            found = self._find(part, position)
            if found < 0:
                return None
            position = found + len(part)
            ends.append(position)
        limit = ends[-1] - len(parts[-1])
        start = limit
        for part in reversed(parts[:-1]):  # then pull the earlier parts up against the last one
            start = self._rfind(part, limit)
            limit = start
        return start, ends[-1]

    def _bounded(self, start: int, part: str) -> bool:
        """A part starting or ending with a digit must not start or end inside a longer number."""
        end = start + len(part)
        if part[0].isdigit() and start > 0 and self.text[start - 1] in _NUMBER_EDGE:
            return False
        return not (part[-1].isdigit() and end < len(self.text) and self.text[end] in _NUMBER_EDGE)

    def _find(self, part: str, position: int) -> int:
        while (found := self.text.find(part, position)) >= 0:
            if self._bounded(found, part):
                return found
            position = found + 1
        return -1

    def _rfind(self, part: str, limit: int) -> int:
        while (found := self.text.rfind(part, 0, limit)) >= 0:
            if self._bounded(found, part):
                return found
            limit = found + len(part) - 1
        raise AssertionError("the forward search found this part before `limit`")


def build_index(pages: PageTexts | Sequence[str]) -> PaperIndex:
    """Normalise every page once (about a second for 300 pages at most; the checks are then cheap)."""
    texts = pages.pages if isinstance(pages, PageTexts) else tuple(pages)
    printed = set(pages.labels) if isinstance(pages, PageTexts) else set()
    notice = pages.notice if isinstance(pages, PageTexts) else None
    bodies = page_bodies(texts, printed)
    page_starts: list[int] = []
    chunks: list[str] = []
    length = 0
    for body in bodies:
        chunk = compact(NUMERIC_CITATION.sub(" ", body))  # a quote may leave "[12]" out
        if chunk and chunk[0].isdigit() and chunks and chunks[-1] and chunks[-1][-1].isdigit():
            chunk = "#" + chunk  # two numbers meeting at a page break stay apart
        page_starts.append(length)
        chunks.append(chunk)
        length += len(chunk)
    folded = fold("\n".join(texts))
    return PaperIndex("".join(chunks), tuple(page_starts), _labels(folded), frozenset(printed), notice)


def page_bodies(pages: Sequence[str], printed: set[str] | None = None) -> list[str]:
    """Each page without its running header and footer (as the checks and the paper view read
    it); the page numbers found go to `printed` when given.

    Only a page's first two and last two lines can be furniture: a bare page number ("12",
    "Page 3 of 9", "iv"), or a line that, digits aside, starts or ends at least three pages and
    30% of them (a journal's running title).
    """
    lines = [page.splitlines() for page in pages]

    def edges(page_lines: list[str]) -> list[int]:
        filled = [i for i, line in enumerate(page_lines) if line.strip()]
        return sorted(set(filled[:2] + filled[-2:]))

    def shape(line: str) -> str:
        return re.sub(r"\d+", "#", " ".join(fold(line).split()))

    seen = Counter(shape(page_lines[i]) for page_lines in lines for i in set(edges(page_lines)))
    repeated = max(3, int(0.3 * len(pages) + 0.999))
    bodies: list[str] = []
    for page_lines in lines:
        drop: set[int] = set()
        for i in edges(page_lines):
            bare = _PAGE_NUMBER_LINE.fullmatch(" ".join(fold(page_lines[i]).split()))
            if bare:
                if printed is not None:
                    printed.add(label_id(bare.group(1)))
                drop.add(i)
            elif seen[shape(page_lines[i])] >= repeated:
                drop.add(i)
        bodies.append("\n".join(line for i, line in enumerate(page_lines) if i not in drop))
    return bodies


def _labels(folded: str) -> PaperLabels:
    flat = " ".join(folded.split())
    sections = {m.group(1) for m in _SECTION.finditer(flat)} | {m.group(1) for m in _HEADING.finditer(folded)}
    equations = {m.group(1) or m.group(2) for m in _EQUATION.finditer(flat)}
    return PaperLabels(
        tables=frozenset(label_id(m.group(1)) for m in _TABLE.finditer(flat)),
        figures=frozenset(label_id(m.group(1)) for m in _FIGURE.finditer(flat)),
        sections=frozenset(sections),
        equations=frozenset(equations),
    )


KEEP_INDEXES = 4  # papers whose index stays in memory (a session rarely switches more often)


def paper_index(pdf: Path, cache_dir: Path) -> PaperIndex:
    """The index of `pdf`, built once per content per process from the cached page texts.

    Blocking: run it in a worker thread. Raises PdfTextUnavailable (one line) for a PDF that
    cannot be read or is encrypted; a scan gives an index whose `notice` says so.
    """
    return _index_of(read_page_texts(pdf, cache_dir))


@functools.lru_cache(maxsize=KEEP_INDEXES)
def _index_of(pages: PageTexts) -> PaperIndex:
    """`build_index` of one extraction; kept by content (PageTexts compares by its text)."""
    return build_index(pages)
