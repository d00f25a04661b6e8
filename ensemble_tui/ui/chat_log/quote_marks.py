"""How a reply's quote checks are shown: a mark after each quote ("✓ p. 2", "✗ not in the paper")
and one summary line under it. The reply's own text (what a copy gives) is left as written."""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

MISSING = "✗ not in the paper"
WARNING = Style(color="yellow", bold=True)


def _decorate(marker: str, found: bool) -> str:
    return f"*{marker}*" if found else f"**{marker}**"


def marked(text: str, checks: dict[str, Any] | None) -> tuple[str, Text | None]:
    """The Markdown to show, marks inserted, and the summary line (None: nothing to say)."""
    if not checks:
        return text, None
    from ensemble_tui.core.paper.quotes import FOUND_MARK, QuoteReport  # with the first checked reply

    report = QuoteReport.from_record(checks)
    summary = report.summary()
    if not summary:
        return text, None
    all_found = not report.notice and all(c.found for c in report.quotes) and not report.missing_references
    inserts = [
        # A quote the reply itself follows with its page ("…" (p. 1)) gets "✓" alone, not "✓ p. 1 (p. 1)".
        (
            check.quotation.end,
            _decorate(FOUND_MARK if _names_page(text, check.quotation.end, check.page) else check.marker, check.found),
        )
        for check in report.quotes
    ]
    inserts += [(ref.end, _decorate(ref.marker, False)) for ref in report.missing_references]
    shown = text
    for position, mark in sorted(inserts, key=lambda item: item[0], reverse=True):
        shown = f"{shown[:position]} {mark}{shown[position:]}"
    return shown, Text(summary, style="dim" if all_found else "bold yellow")


def _names_page(text: str, end: int, page: int | None) -> bool:
    """Whether the reply cites `page` right after the quote ending at `end`: `(p. 1)`, `(page 1)`."""
    return page is not None and re.match(rf"\s*\((?:pp?\.|pages?)\s*{page}\b", text[end:], re.I) is not None


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


def with_marks(body: RenderableType, checks: dict[str, Any] | None) -> RenderableType:
    """`body` (the marked reply, rendered) with its missing marks coloured, if it has any."""
    return WarningMarks(body) if checks and _has_missing(checks) else body


def _has_missing(checks: dict[str, Any]) -> bool:
    quotes = checks.get("quotes", [])
    references = checks.get("references", [])
    return any(q.get("page") is None for q in quotes) or any(not r.get("found") for r in references)
