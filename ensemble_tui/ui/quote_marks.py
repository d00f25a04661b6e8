"""How a reply's quote checks are shown: a mark after each quote ("✓ p. 2", "✗ not in the paper")
and one summary line under it. The reply's own text (what a copy gives) is left as written."""

from __future__ import annotations

from typing import Any

from rich.text import Text


def _decorate(marker: str, found: bool) -> str:
    return f"*{marker}*" if found else f"**{marker}**"


def marked(text: str, checks: dict[str, Any] | None) -> tuple[str, Text | None]:
    """The Markdown to show, marks inserted, and the summary line (None: nothing to say)."""
    if not checks:
        return text, None
    from ensemble_tui.core.quotes import QuoteReport, annotate_markdown  # with the first checked reply

    report = QuoteReport.from_record(checks)
    summary = report.summary()
    if not summary:
        return text, None
    all_found = not report.notice and all(c.found for c in report.quotes) and not report.missing_references
    return annotate_markdown(text, report, _decorate), Text(summary, style="dim" if all_found else "bold yellow")
