"""Rich Markdown whose tables give up room in their words, never in their figures.

Rich shrinks every column of a table that is too wide for the screen and cuts each cell with
"…": at 80 columns the run report's calls table showed its costs as "$0.00…". Here a column
holding only figures (counts, "$0.0040", "4.20 s", "1.3B") keeps its width, and the columns of
words give up the room: first the padding beside the space between columns, then the widest column, down to
its longest word, and only then are words folded.
"""

from __future__ import annotations

import re
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown, MarkdownElement, TableElement
from rich.table import Table
from rich.text import Text

# A number with an optional sign, currency and short unit: "2200", "$0.0040", "4.20 s", "74.8%".
_FIGURE = re.compile(r"[-+]?[$€£]?\d[\d.,:]*\s?[A-Za-z%]{0,2}")


# A word longer than this (a model id, a URL) is folded before shorter words are.
LONG_WORD = 10


def is_figure(text: str) -> bool:
    return not text.strip() or _FIGURE.fullmatch(text.strip()) is not None


def cell_text(cell: object) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def shrink(widths: list[int], floors: list[int], excess: int) -> list[int]:
    """Take `excess` cells from `widths`, one at a time from the widest column still above its
    floor; once all are at their floors, from the widest above one cell."""
    widths = list(widths)
    for floor in (floors, [1] * len(widths)):
        while excess > 0:
            above = [index for index, width in enumerate(widths) if width > floor[index]]
            if not above:
                break
            widest = max(above, key=lambda index: widths[index])
            widths[widest] -= 1
            excess -= 1
    return widths


def fit_columns(table: Table, console: Console, options: ConsoleOptions) -> None:
    """Keep figure columns whole; if the table is too wide, narrow the columns of words."""
    words: list[int] = []
    for index, column in enumerate(table.columns):
        cells = [cell_text(cell) for cell in column.cells]
        if cells and all(is_figure(cell) for cell in cells):
            column.no_wrap = True
        else:
            column.overflow = "fold"
            words.append(index)
    if not words or _excess(table, console, options) <= 0:
        return
    table.padding = (0, 0)  # the box draws a space between columns: no padding beside it
    excess = _excess(table, console, options)
    if excess <= 0:
        return
    naturals, floors = [], []
    for index in words:
        column = table.columns[index]
        texts = [cell_text(column.header), *(cell_text(cell) for cell in column.cells)]
        naturals.append(max(Text(line).cell_len for text in texts for line in text.splitlines() or [""]))
        longest_word = max((Text(word).cell_len for text in texts for word in text.split()), default=1)
        floors.append(min(longest_word, LONG_WORD))
    for index, width in zip(words, shrink(naturals, floors, excess), strict=True):
        table.columns[index].width = max(1, width)


def _excess(table: Table, console: Console, options: ConsoleOptions) -> int:
    """How much wider than the room the table would be (Measurement.get would clamp it)."""
    return table.__rich_measure__(console, options).maximum - options.max_width


class FittedTableElement(TableElement):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for renderable in super().__rich_console__(console, options):
            if isinstance(renderable, Table):
                fit_columns(renderable, console, options)
            yield renderable


class FittedMarkdown(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {**Markdown.elements, "table_open": FittedTableElement}
