"""The chat's Markdown: Rich's, with tables fitted to the width and two elements of its own.

- Numbered lists keep the delimiter that was typed: "1. why" stays "1. why". Rich writes an
  ordered list's numbers bare ("1 why"), so a question typed as a numbered list came back
  without its periods, and so did every numbered list of a reply. markdown-it keeps the
  delimiter ("." or ")") on the list's opening token.
- Display math (a fenced block marked DISPLAY_MATH by core/math/mathtext.py) is drawn as its
  rows, indented by padding: no character stands in the indent, so a copy from the terminal
  holds the formula alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.markdown import CodeBlock, ListElement, ListItem, MarkdownElement
from rich.padding import Padding
from rich.segment import Segment
from rich.text import Text

from ensemble_tui.core.math import DISPLAY_MATH
from ensemble_tui.ui.chat_log.fitted_markdown import FittedMarkdown

# Display math is set in by this many cells, as a code block's text is.
MATH_INDENT = 4

if TYPE_CHECKING:
    from markdown_it.token import Token
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.markdown import Markdown


class NumberedList(ListElement):
    """A list element whose numbers carry their delimiter; bullet lists render as Rich's do."""

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> NumberedList:
        element = cls(token.type, int(token.attrs.get("start", 1)))
        element.delimiter = token.markup if token.markup in (".", ")") else "."
        return element

    delimiter = "."

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.list_type == "bullet_list_open":
            yield from super().__rich_console__(console, options)
            return
        first = 1 if self.list_start is None else self.list_start
        last = first + len(self.items) - 1
        for index, item in enumerate(self.items):
            yield from numbered_item(console, options, item, f"{first + index}{self.delimiter}", len(f"{last}.") + 2)


def numbered_item(console: Console, options: ConsoleOptions, item: ListItem, number: str, width: int) -> RenderResult:
    """One item, its number right-aligned in `width` cells (a space each side, as Rich sets
    it) and its lines indented under the text."""
    lines = console.render_lines(item.elements, options.update(width=options.max_width - width), style=item.style)
    number_style = console.get_style("markdown.item.number", default="none")
    numeral = Segment(number.rjust(width - 1) + " ", number_style)
    padding = Segment(" " * width, number_style)
    for index, line in enumerate(lines):
        yield numeral if index == 0 else padding
        yield from line
        yield Segment("\n")


class MathOrCodeBlock(CodeBlock):
    """A fenced block: display math as indented rows, any other as Rich shows code."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.lexer_name != DISPLAY_MATH:
            yield from super().__rich_console__(console, options)
            return
        yield Padding(Text(str(self.text).rstrip("\n"), end=""), (0, 0, 0, MATH_INDENT))


class ChatMarkdown(FittedMarkdown):
    """The chat's Markdown: tables fitted to the width, numbered lists with their delimiter,
    display math set in by layout."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **FittedMarkdown.elements,
        "ordered_list_open": NumberedList,
        "bullet_list_open": NumberedList,
        "fence": MathOrCodeBlock,
    }
