"""The fenced code blocks of a reply, as their Markdown source, so each can be copied alone."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt


@dataclass(frozen=True)
class CodeBlock:
    language: str
    code: str  # the block's text as written, without its fences

    @property
    def title(self) -> str:
        """ "python: def f(x):" - the language and the first non-empty line, for a menu."""
        first = next((line.strip() for line in self.code.splitlines() if line.strip()), "(empty)")
        return f"{self.language or 'code'}: {first[:60]}"


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark")


def fenced_blocks(markdown: str) -> list[CodeBlock]:
    """Every fenced code block, in order (indented blocks are left out: they are rarely code
    a model meant to be copied)."""
    return [
        CodeBlock(token.info.strip().split(" ")[0], token.content)
        for token in _parser().parse(markdown)
        if token.type == "fence"
    ]
