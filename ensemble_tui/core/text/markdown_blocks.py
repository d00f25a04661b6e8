"""Small rewrites of Markdown that keep its meaning: a person's line breaks kept, and the headings
of a text placed inside a document moved below the document's own; and a cheap first look for
math and a parser of the block structure, which the UI takes without importing the math
converter."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")


@lru_cache(maxsize=1)
def block_parser() -> MarkdownIt:
    """CommonMark's block structure only (code blocks, paragraphs, lists...): inline parsing was
    2/3 of the cost and finds no block. markdown-it is imported on first use."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable(["inline", "text_join"], ignoreInvalid=True)


def has_math(markdown: str) -> bool:
    """Cheap first look: could `markdown` hold math at all?"""
    return "$" in markdown or "\\(" in markdown or "\\[" in markdown


def keep_line_breaks(text: str) -> str:
    """Markdown that keeps the writer's line breaks (outside code blocks) as hard breaks.

    People type questions as lines, not paragraphs; plain Markdown would join them.
    """
    lines = text.split("\n")
    in_fence = False
    out: list[str] = []
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if not in_fence and line.strip() and following.strip() and not _FENCE.match(following):
            line = line.rstrip() + "  "
        out.append(line)
    return "\n".join(out)


def nest_headings(markdown: str, below: int) -> str:
    """`markdown` with its headings moved down so the highest is level `below + 1` (at most 6).

    A model's reply quoted under "#### Request 1" may open with "# Proposed Reply 1:"; left as it
    is, it would outrank the report's own headings in an outline. Setext headings become ATX ones;
    code blocks are left alone (markdown-it finds the headings, as it finds them when rendering).
    """
    if "#" not in markdown and "\n=" not in markdown and "\n-" not in markdown:
        return markdown
    from markdown_it import MarkdownIt

    headings = [
        (token.map, token.markup, int(token.tag[1]))
        for token in MarkdownIt("commonmark").parse(markdown)
        if token.type == "heading_open" and token.map
    ]
    if not headings:
        return markdown
    shift = max(0, below + 1 - min(level for _, _, level in headings))
    if not shift:
        return markdown
    lines: list[str | None] = list(markdown.split("\n"))
    for (start, end), markup, level in headings:
        hashes = "#" * min(6, level + shift)
        if markup.startswith("#"):
            line = lines[start] or ""
            indent = len(line) - len(line.lstrip(" "))
            lines[start] = line[:indent] + hashes + line[indent:].lstrip("#")
        else:  # setext: text lines, then the underline
            text = " ".join((line or "").strip() for line in lines[start : end - 1])
            lines[start:end] = [f"{hashes} {text}"] + [None] * (end - start - 1)
    return "\n".join(line for line in lines if line is not None)
