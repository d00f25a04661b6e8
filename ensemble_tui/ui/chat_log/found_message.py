"""A chat opened from a search result (the history's, ui/screens/search_results.py): the found
message is mounted (with the older ones it needs), marked, its words looked for highlighted, and
scrolled into view at the first line that holds one, until another chat is shown."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style

from ensemble_tui.ui.chat_log.chat_view import LogEntry, MessageLog

FOUND = "-found"  # styled in app.tcss
MATCH = Style(bold=True, reverse=True)
CONTEXT_LINES = 2  # lines shown above the first match


class MarkedWords:
    """`inner` drawn with every occurrence of `words` (case ignored, a word's start: a prefix
    query's word marks the words it begins) highlighted; `first_line` is the first line drawn
    that holds one (None until drawn, or if none does)."""

    def __init__(self, inner: RenderableType, words: Sequence[str]) -> None:
        self.inner = inner
        alternatives = "|".join(re.escape(word) for word in sorted(set(words), key=len, reverse=True))
        self.pattern = re.compile(rf"(?<!\w)(?:{alternatives})", re.IGNORECASE) if alternatives else None
        self.first_line: int | None = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line = 0
        for segment in console.render(self.inner, options):
            if segment.control or self.pattern is None or not self.pattern.search(segment.text):
                line += segment.text.count("\n")
                yield segment
                continue
            if self.first_line is None:
                self.first_line = line
            yield from self._marked(segment)
            line += segment.text.count("\n")

    def _marked(self, segment: Segment) -> Iterable[Segment]:
        assert self.pattern is not None
        text, style, start = segment.text, segment.style, 0
        for match in self.pattern.finditer(text):
            if match.start() > start:
                yield Segment(text[start : match.start()], style)
            yield Segment(match.group(), (style or Style()) + MATCH)
            start = match.end()
        if start < len(text):
            yield Segment(text[start:], style)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.inner)


async def claim_lines_shown(log: MessageLog) -> None:
    """Wait until the chat's claim lines (ui/chat_log/claim_lines.py, looked up in a thread) are
    shown: showing them draws the replies again, which would drop the highlighting."""
    for worker in list(log.workers):
        if worker.node is log and worker.group == "claim-lines":
            with contextlib.suppress(Exception):  # cancelled or failed: no lines to wait for
                await worker.wait()


def open_at(log: MessageLog, item: Any, words: Sequence[str] = ()) -> LogEntry | None:
    """Show `item` (one of the log's items) marked, from its first line holding one of `words`
    (else from its start); None if it is not in the log."""
    while not any(entry.item is item for entry in log.entries) and log.load_earlier():
        pass
    entry = next((entry for entry in log.entries if entry.item is item), None)
    if entry is None:
        return None
    for marked in log.query(f".{FOUND}"):
        marked.remove_class(FOUND)
    entry.add_class(FOUND)
    highlighted = MarkedWords(entry.content, words) if words else None
    if highlighted is not None:
        entry.update(highlighted)
    log.release_anchor()  # or the compositor would pull the view back to the end

    def scroll(refreshes_left: int = 5) -> None:
        if not entry.is_attached:
            return
        y = entry.virtual_region_with_margin.y
        if (not entry.outer_size.height or y > log.max_scroll_y) and refreshes_left:
            log.call_after_refresh(scroll, refreshes_left - 1)
            return
        first = highlighted.first_line if highlighted is not None else None
        if first is not None and first > CONTEXT_LINES:
            y = entry.virtual_region.y + entry.styles.padding.top + first - CONTEXT_LINES
        log.scroll_to(y=y, animate=False, immediate=True)

    log.call_after_refresh(scroll)
    return entry
