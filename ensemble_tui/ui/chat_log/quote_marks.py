"""How a reply's quote checks are shown: a mark after each quote ("✓ p. 2", "✗ not in the paper")
and one summary line under it. The reply's own text (what a copy gives) is left as written.

A quote's mark is a way into the paper view: a click on it opens the passage. The app's marks
go into the Markdown between two invisible characters (MARK_START, MARK_END) that are blanked
out of the model's own text first, so only the app's mark text can carry the click: `MarkLinks`
finds them in the rendered segments, drops them and gives the mark's cells a `quote_mark` meta
(the quote's index in the checks), which `quotation_clicked` reads back from a click.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

MISSING = "✗ not in the paper"
WARNING = Style(color="yellow", bold=True)
MARK_START = "\u2060"  # word joiner: zero width, never left in what is shown
MARK_END = "\u2061"  # function application: zero width, likewise
MARK_META = "quote_mark"


def marked(text: str, checks: dict[str, Any] | None) -> tuple[str, Text | None]:
    """The Markdown to show, marks inserted, and the summary line (None: nothing to say)."""
    if not checks:
        return text, None
    from ensemble_tui.core.paper.quotes import (  # with the first checked reply
        QuoteReport,
        annotate_markdown,
        emphasised,
    )

    report = QuoteReport.from_record(checks)
    summary = report.summary()
    if not summary:
        return text, None
    text = text.replace(MARK_START, " ").replace(MARK_END, " ")  # same length: the offsets hold
    shown = annotate_markdown(text, report, emphasised, quote_mark=lambda marker: MARK_START + marker + MARK_END)
    return shown, Text(summary, style="dim" if report.all_found else "bold yellow")


class WarningMarks:
    """`renderable` with each "✗ not in the paper" mark in the warning colour. (Markdown has no
    colours: the marks go in as bold text, and the bold pieces of that phrase, however the line
    wrapped them, are recoloured here.)"""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self.renderable, options):
            text, style = segment.text, segment.style
            if style is not None and style.bold and text.strip() and text.strip() in MISSING:
                yield Segment(text, style + WARNING, segment.control)
            else:
                yield segment


class MarkLinks:
    """`renderable` with the app's quote marks made clickable: the cells between MARK_START and
    MARK_END carry `{MARK_META: n}` (the n-th quote), and the two characters are dropped."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        index = -1
        inside = False
        for segment in console.render(self.renderable, options):
            text, style = segment.text, segment.style
            if not inside and MARK_START not in text:
                yield segment
                continue
            begin = 0
            for at, char in enumerate(text):
                if char in (MARK_START, MARK_END):
                    if at > begin:
                        yield _piece(text[begin:at], style, index if inside else None)
                    begin = at + 1
                    inside = char == MARK_START
                    index += inside
            if begin < len(text):
                yield _piece(text[begin:], style, index if inside else None)


def _piece(text: str, style: Style | None, index: int | None) -> Segment:
    """A run of a segment's text, with the quote's meta when it is a mark's visible text."""
    if index is None or not text.strip():
        return Segment(text, style)
    meta = Style(meta={MARK_META: index})
    return Segment(text, meta if style is None else style + meta)


def with_marks(body: RenderableType, checks: dict[str, Any] | None) -> RenderableType:
    """`body` (the marked reply, rendered) with its quote marks clickable and its missing marks
    coloured, if it has any."""
    if not checks:
        return body
    linked = MarkLinks(body) if checks.get("quotes") else body
    return WarningMarks(linked) if _has_missing(checks) else linked


def quotation_clicked(meta: dict[str, Any], checks: dict[str, Any] | None) -> str | None:
    """The quotation whose mark was clicked (`meta` of the clicked cell), or None: not a mark."""
    index = meta.get(MARK_META)
    quotes = (checks or {}).get("quotes", [])
    if not isinstance(index, int) or not 0 <= index < len(quotes):
        return None
    return str(quotes[index].get("text", "")) or None


def quotations(checks: dict[str, Any] | None) -> list[str]:
    """The checked quotations of a message, in its order (what a key on a message opens first)."""
    return [str(quote.get("text", "")) for quote in (checks or {}).get("quotes", []) if quote.get("text")]


def _has_missing(checks: dict[str, Any]) -> bool:
    quotes = checks.get("quotes", [])
    references = checks.get("references", [])
    return any(q.get("page") is None for q in quotes) or any(not r.get("found") for r in references)
