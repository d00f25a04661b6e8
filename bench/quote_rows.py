"""Row 7: checking a reply's quotations against a 300-page paper (issue 17).

A 300-page text PDF is generated with fpdf2 (the `test` extra; the row reports an error without
it): ~450 words a page of seeded pseudo-prose with numbers, a running header and page numbers, as
a journal prints them. The reply is ~5,000 words of prose holding 20 quotations: 12 taken from the
PDF's own extracted text (some across a page break, some shortened with an ellipsis) and 8 that
are not in it (one number changed, fabricated, paraphrased), plus page, table and section
references. The row checks that exactly the 12 are found, then times `check_quotes` with the
paper's index built (what every reply costs); building the index and reading the PDF happen once
per paper, off the UI thread, and are reported as info.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from bench.sizes import FULL, Sizes
from bench.table import Row, error_row, millis, ratio, seconds, verdict
from ensemble_tui.core.paper.paper_index import build_index
from ensemble_tui.core.paper.pdf_pages import read_page_texts
from ensemble_tui.core.paper.quotes import check_quotes

WORDS_PER_PAGE = 450
REPLY_WORDS = 5000
FOUND, MISSING = 12, 8
GOAL_S = 0.050

VOCABULARY = (
    "model models answer answers aggregator proposal proposals round rounds debate council vote ranking "
    "accuracy cost question questions benchmark paper method methods result results sample error errors "
    "the a of to and in that is for with on as by at from this we our their each every one several "
    "independent anonymous merged careful reader careful strong weak final first second third mean median"
).split()


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(VOCABULARY) for _ in range(rng.randint(8, 18))]
    for _ in range(rng.randint(0, 2)):
        words.insert(rng.randrange(len(words)), str(rng.randint(1, 999)) + rng.choice(["", ".5", ".25"]))
    return " ".join(words).capitalize() + "."


def make_paper(path: Path, rng: random.Random, pages: int) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=9)
    for number in range(1, pages + 1):
        pdf.add_page()
        pdf.set_xy(15, 8)
        pdf.cell(text="Journal of Model Ensembles 12 (2026)")
        words: list[str] = []
        while len(words) < WORDS_PER_PAGE:
            words += _sentence(rng).split()
        pdf.set_xy(15, 16)
        pdf.multi_cell(180, 4.2, " ".join(words))
        pdf.set_xy(100, 287)
        pdf.cell(text=str(number))
    pdf.output(str(path))
    return path


def _one_number_changed(pages: tuple[str, ...], rng: random.Random) -> str:
    """A true passage holding a number, with that number's first digit changed: a near miss."""
    while True:
        words = pages[rng.randrange(len(pages))].split()
        start = rng.randrange(10, len(words) - 30)
        span = words[start : start + 15]
        numbers = [i for i, word in enumerate(span) if word[0].isdigit()]
        if numbers:
            word = span[numbers[0]]
            span[numbers[0]] = str((int(word[0]) + 1) % 10) + word[1:]
            return " ".join(span)


def make_reply(pages: tuple[str, ...], rng: random.Random) -> tuple[str, list[int | None]]:
    """Prose with the quotations spread through it, and the page each should be found on."""
    quotes: list[tuple[str, int | None]] = []
    for n in range(FOUND):
        page = rng.randrange(len(pages) - 1)
        words = pages[page].split()
        if n % 4 == 0:  # across the page break: the page's last words, then the next page's first
            following = pages[page + 1].split()[6:]  # past the running header (six words)
            quotes.append((" ".join(words[-8:-1] + following[:8]), page + 1))  # words[-1]: the page number
            continue
        start = rng.randrange(10, len(words) - 30)
        span = words[start : start + rng.randint(10, 25)]
        if n % 4 == 1:
            span = span[:5] + ["…"] + span[-5:]
        quotes.append((" ".join(span), page + 1))
    quotes.append((_one_number_changed(pages, rng), None))
    for _ in range(MISSING - 1):  # made up from the paper's own words
        quotes.append((" ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(10, 20))), None))
    prose: list[str] = []
    while sum(len(p.split()) for p in prose) < REPLY_WORDS:
        refs = f" See p. {rng.randint(1, 400)} and Table {rng.randint(1, 9)}."
        prose.append(" ".join(_sentence(rng) for _ in range(4)) + refs)
    step = len(prose) // len(quotes)
    for i, (quote, _) in enumerate(quotes):
        section = f"{rng.randint(1, 6)}.{rng.randint(1, 4)}"
        prose.insert(i * (step + 1) + 1, f'As the authors write, "{quote}" in Section {section}.')
    return "\n\n".join(prose), [page for _, page in quotes]


def median_time(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run(root: Path, sizes: Sizes = FULL) -> list[Row]:
    rng = random.Random(17)
    runs = sizes.quote_runs
    try:
        paper = make_paper(root / f"paper-{sizes.pages}-pages.pdf", rng, sizes.pages)
        cache = root / "quote-cache"
        started = time.perf_counter()
        texts = read_page_texts(paper, cache)
        first_read = time.perf_counter() - started
        cached_read = median_time(lambda: read_page_texts(paper, cache), runs=min(5, runs))
        started = time.perf_counter()
        index = build_index(texts)
        build = time.perf_counter() - started
        reply, expected = make_reply(texts.pages, rng)
        report = check_quotes(reply, index)
        pages = [check.page for check in report.quotes]
        if pages != expected:
            raise RuntimeError(f"quotations found on pages {pages}, expected {expected}")
        found = sum(check.found for check in report.quotes)
        check = median_time(lambda: check_quotes(reply, index), runs)
        raw = "\n".join(texts.pages)
        plain = [q.quotation.text for q in report.quotes]
        bare = median_time(lambda: [raw.find(text) for text in plain], runs)
    except Exception as exc:
        return [error_row("7.a", f"quote check: 5,000-word reply, {sizes.pages}-page paper", exc)]
    words = len(reply.split())
    return [
        Row(
            "7.a",
            f"quote check: 5,000-word reply, {sizes.pages}-page paper",
            millis(check),
            f"bare find {millis(bare)}",
            ratio(check, bare),
            f"<= {GOAL_S * 1000:.0f} ms",
            verdict(check <= GOAL_S),
            f"median of {runs}; reply {words} words, {len(report.quotes)} quotations ({found} found), "
            f"{len(report.references)} references; baseline: one str.find per quotation in the raw text",
        ),
        Row(
            "7.b",
            f"quote check: index of the {sizes.pages}-page paper (once a paper)",
            seconds(build),
            "-",
            "-",
            "-",
            "info",
            f"{len(index.text) / 1e6:.2f} M characters once normalised",
        ),
        Row(
            "7.c",
            "quote check: the paper's text from the cache",
            millis(cached_read),
            f"pypdf {seconds(first_read)}",
            ratio(cached_read, first_read),
            "-",
            "info",
            "first read: pypdf's extraction of every page and the cache write; then: hash and JSON",
        ),
    ]
