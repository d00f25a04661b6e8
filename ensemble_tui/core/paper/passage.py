"""Where a quotation is in the paper, as a page and a character range of that page's shown text.

The paper view shows each page without its running header and footer (the same pages the quote
checks read, `paper_index.page_bodies`), and the JSON export gives a checked quote's range in that
text so another tool can jump to it. A quotation is located by the checks' own rule (letters and
numbers in order, see paper_index.py), through a compact text that remembers, for each of its
characters, the page character it came from. A quotation the paper does not hold word for word
gets its closest passage instead: the run of the paper's words sharing most words with it, when
at least half of them do.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ensemble_tui.core.paper.paper_index import (
    GAP,
    NUMERIC_CITATION,
    TOKEN,
    PaperIndex,
    PaperLabels,
    fold,
    page_bodies,
    quote_parts,
)
from ensemble_tui.core.paper.pdf_pages import PageTexts, read_page_texts

CLOSE_SHARE = 0.5  # the closest passage must share at least this share of the quotation's words
MIN_CLOSE_WORDS = 3


@dataclass(frozen=True)
class Passage:
    """`start:end` of page `page`'s shown text (1-based page); `exact`: found word for word."""

    page: int
    start: int
    end: int
    exact: bool = True

    def as_record(self) -> dict[str, int]:
        return {"page": self.page, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class PaperText:
    """The paper's pages as shown (headers and footers left out), with what locating needs.

    Each word of the paper (folded: `fold`) is kept with its page, its range in that page and
    where it starts in the compact text the checks search; `compact` is that text."""

    pages: tuple[str, ...]
    notice: str | None  # set for a scan: there is no text to show
    compact: str
    page_starts: tuple[int, ...]  # offset of each page in `compact`
    words: tuple[str, ...]
    word_pages: tuple[int, ...]  # 0-based
    word_starts: tuple[int, ...]  # in the folded page text
    word_ends: tuple[int, ...]
    word_offsets: tuple[int, ...]  # where each word starts in `compact`

    @property
    def page_count(self) -> int:
        return len(self.pages)

    def locate(self, quotation: str) -> Passage | None:
        """The quotation's passage: word for word if the paper has it, else the closest, else None."""
        return self.exact(quotation) or self.closest(quotation)

    def exact(self, quotation: str) -> Passage | None:
        """Found by the checks' rule (paper_index.py): the same page the ✓ mark gives."""
        index = PaperIndex(self.compact, self.page_starts, _NO_LABELS, frozenset())
        span = index.find_span(quote_parts(quotation))
        if span is None:
            return None
        first, last = self._word_at(span[0]), self._word_at(span[1] - 1)
        start = self._page_char(first, self.word_starts[first] + span[0] - self.word_offsets[first])
        end = self._page_char(last, self.word_starts[last] + span[1] - 1 - self.word_offsets[last]) + 1
        end += _same_tail(quotation, self.pages[self.word_pages[last]], end)
        return self._passage(self.word_pages[first], start, self.word_pages[last], end, exact=True)

    def closest(self, quotation: str) -> Passage | None:
        """The window of the paper's words, as long as the quotation, sharing most words with it."""
        wanted = Counter(TOKEN.findall(fold(GAP.sub(" ", quotation))))
        size = sum(wanted.values())
        words = self.words
        if size < MIN_CLOSE_WORDS or not words:
            return None
        window: Counter[str] = Counter()
        shared = best = best_end = 0
        for i, word in enumerate(words):
            window[word] += 1
            if window[word] <= wanted[word]:
                shared += 1
            if i >= size:
                old = words[i - size]
                if window[old] <= wanted[old]:
                    shared -= 1
                window[old] -= 1
            if shared > best:
                best, best_end = shared, i
        if best < max(MIN_CLOSE_WORDS, CLOSE_SHARE * size):
            return None
        run = [i for i in range(max(0, best_end - size + 1), best_end + 1) if wanted[words[i]]]
        first, last = run[0], run[-1]
        start = self._page_char(first, self.word_starts[first])
        end = self._page_char(last, self.word_ends[last] - 1) + 1
        return self._passage(self.word_pages[first], start, self.word_pages[last], end, exact=False)

    def find(self, query: str) -> list[tuple[int, int, int]]:
        """Every occurrence of `query` as `(page, start, end)`, ignoring case, accents and spacing."""
        words = fold(query).split()
        if not words:
            return []
        pattern = re.compile(r"\s+".join(re.escape(word) for word in words))
        found: list[tuple[int, int, int]] = []
        for number, page in enumerate(self.pages, start=1):
            folded, where = fold_mapped(page)
            found += [(number, where[m.start()], where[m.end() - 1] + 1) for m in pattern.finditer(folded)]
        return found

    def _word_at(self, offset: int) -> int:
        return bisect.bisect_right(self.word_offsets, offset) - 1

    def _page_char(self, word: int, folded_at: int) -> int:
        """The page character that folded character `folded_at` of word `word`'s page came from."""
        page = self.word_pages[word]
        _folded, where = fold_mapped(_blank_citations(self.pages[page]))  # one page, on demand
        return where[min(folded_at, len(where) - 1)]

    def _passage(self, page: int, start: int, end_page: int, end: int, *, exact: bool) -> Passage:
        """The range as a range of its first page (cut at that page's end when it runs over)."""
        return Passage(page + 1, start, end if end_page == page else len(self.pages[page]), exact)


_NO_LABELS = PaperLabels(frozenset(), frozenset(), frozenset(), frozenset())


FULL_LINE = 0.6  # a line at least this share of the page's longest is one the PDF's layout wrapped


def reflowed(page: str) -> str:
    """`page` with the PDF's layout line breaks inside paragraphs turned into spaces, so the
    terminal wraps the text to its own width; the same length, so every range still holds.

    A break is joined when its line is long (the layout wrapped it) and the next line goes on
    in lower case; headings ("3 Results"), short lines and new sentences keep their break."""
    lines = page.split("\n")
    widest = max((len(line.rstrip()) for line in lines), default=0)
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        if i + 1 < len(lines):
            following = lines[i + 1].lstrip()[:1]
            wrapped = len(line.rstrip()) >= FULL_LINE * widest and following.islower()
            out.append(" " if wrapped else "\n")
    return "".join(out)


def _same_tail(quotation: str, page: str, end: int) -> int:
    """How many characters of punctuation ending the quotation ("cost.") the page has at `end` too."""
    quoted = quotation.rstrip()
    keep = len(quoted)
    while keep and not quoted[keep - 1].isalnum() and not quoted[keep - 1].isspace():
        keep -= 1
    tail = quoted[keep:]
    return len(tail) if tail and page.startswith(tail, end) else 0


def _blank_citations(body: str) -> str:
    """`body` without numeric citations, as the checks read it, the same length (offsets hold)."""
    return NUMERIC_CITATION.sub(lambda m: " " * len(m.group(0)), body)


def paper_text(pages: Sequence[str], notice: str | None = None) -> PaperText:
    """The shown pages and their words; the compact text is built as the checks build theirs."""
    bodies = tuple(page_bodies(pages))
    parts: list[str] = []
    page_starts: list[int] = []
    words: list[str] = []
    word_pages: list[int] = []
    word_starts: list[int] = []
    word_ends: list[int] = []
    word_offsets: list[int] = []
    length = 0
    after_number = False
    for number, body in enumerate(bodies):
        page_starts.append(length)
        folded, _where = fold_mapped(_blank_citations(body))
        for match in TOKEN.finditer(folded):
            word = match.group(0)
            is_number = word[0].isdigit()
            if is_number and after_number:
                parts.append("#")
                length += 1
            words.append(word)
            word_pages.append(number)
            word_starts.append(match.start())
            word_ends.append(match.end())
            word_offsets.append(length)
            parts.append(word)
            length += len(word)
            after_number = is_number
    return PaperText(
        bodies,
        notice,
        "".join(parts),
        tuple(page_starts),
        tuple(words),
        tuple(word_pages),
        tuple(word_starts),
        tuple(word_ends),
        tuple(word_offsets),
    )


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def fold_mapped(text: str) -> tuple[str, list[int]]:
    """`fold(text)`, a character at a time, with each folded character's index in `text`."""
    if text.isascii():
        return text.lower(), list(range(len(text)))
    out: list[str] = []
    where: list[int] = []
    done = 0
    for match in _NON_ASCII.finditer(text):
        at = match.start()
        out.append(text[done:at].lower())
        where.extend(range(done, at))
        folded = fold(match.group(0))
        out.append(folded)
        where.extend([at] * len(folded))
        done = at + 1
    out.append(text[done:].lower())
    where.extend(range(done, len(text)))
    return "".join(out), where


KEEP = 2  # papers whose shown text stays in memory


def read_paper_text(pdf: Path, cache_dir: Path) -> PaperText:
    """The paper's shown pages, built once per content per process (from the cached extraction).

    Blocking: run it in a worker thread. Raises PdfTextUnavailable (one line) for a PDF that
    cannot be read or is encrypted; a scan gives a PaperText whose `notice` says so.
    """
    return _paper_text_of(read_page_texts(pdf, cache_dir))


@functools.lru_cache(maxsize=KEEP)
def _paper_text_of(pages: PageTexts) -> PaperText:
    """`paper_text` of one extraction; kept by content (PageTexts compares by its text)."""
    return paper_text(pages.pages, pages.notice)


def locate_quote(pdf: Path, cache_dir: Path, quotation: str) -> Passage | None:
    """Where `quotation` is in `pdf` (exact when found word for word); None when nothing is close."""
    return read_paper_text(pdf, cache_dir).locate(quotation)
