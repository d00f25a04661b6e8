"""LaTeX math in a Markdown reply turned into Unicode text the terminal can show.

The models are asked for LaTeX (`$...$`, `$$...$$`, `\\(...\\)`, `\\[...\\]`); raw, it is hard to
read and gets cut mid-command. `render_math` returns the same Markdown with each formula replaced
by its Unicode rendering (see core/math/latex_unicode.py), escaped so Markdown shows it as written.
Display math becomes a fenced block of its own marked `DISPLAY_MATH` (its rows kept exactly as
laid out, so Markdown neither joins nor re-indents the rows of a matrix); the chat draws such a
block as indented text (ui/chat_log/chat_markdown.py). The indent is layout, not characters: a
blank braille cell and no-break spaces did it before, and a copy from the terminal carried them
along. A formula that cannot be converted is shown raw, as code.

What is math follows pandoc's `tex_math_dollars` rule, so prices and shell variables stay as they
are: an opening `$` has a non-space after it (and no letter or digit before it), the closing `$`
is the next unescaped one, has a non-space before it and no letter or digit after it ("costs $5
and $10", "$HOME/$USER" are text). Code spans, fenced and indented code are never touched (the
code blocks are found by markdown-it, the parser rich itself uses).

Libraries compared on the corpus of tests/data/math_corpus.json (issue 16):
- pylatexenc (LatexNodes2Text): a robust parser, but `x_{i=1}^n` came out `x_i=1^n` (braces
  dropped, scripts ambiguous), `\\|x\\|` was lost, environments joined into one line.
- flatlatex: good scripts (`x²ⁿ⁺¹`) but left `\\mathrm`, `\\left`, `\\lim`, every environment raw.
- unicodeit: the best symbol and script tables, but text substitution only: no `\\frac`, `\\sqrt{..}`,
  `\\text`, environments, and bugs from prefix matching (`\\lim` -> `łim`, `\\left` -> `≤ft`).
- sympy (parse_latex, needs antlr4): 2-D ASCII art over several lines, ~35 ms a formula, and it
  failed on norms, matrices and cases or misread `\\mathbb{E}` as a product.
So pylatexenc parses and unicodeit's tables name the symbols; the layout is ours (latex_unicode.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from ensemble_tui.core.math import DISPLAY_MATH
from ensemble_tui.core.math.latex_unicode import Unconvertible, latex_to_unicode
from ensemble_tui.core.text.markdown_blocks import block_parser, has_math

_MARKDOWN_ACTIVE = re.compile(r"([\\`*_\[\]<>|~&#])")
_NEXT = re.compile(r"[`$\\]")
_QUOTE = re.compile(r"[ \t]*(?:>[ \t]?)*")
_LIST_MARKER = re.compile(r"(?:[-*+]|\d{1,9}[.)])[ \t]+")
_BLANK_LINE = re.compile(r"(\n[ \t]*\n)")
_FENCE_OR_INDENT = re.compile(r"^(?: {0,3}(?:```|~~~)| {4}|\t)", re.MULTILINE)


@lru_cache(maxsize=1024)
def render_math(markdown: str) -> str:
    """`markdown` with its LaTeX math as Unicode text; everything else exactly as it was."""
    return substitute_math(markdown, latex_to_unicode, fence=DISPLAY_MATH)


FormulaRenderer = Callable[[str, bool], str]


def substitute_math(markdown: str, formula: FormulaRenderer, escape: bool = True, fence: str | None = None) -> str:
    """`markdown` with each formula replaced by `formula(latex, display)`; a formula it raises
    `Unconvertible` for is shown as code. Display math is a paragraph of its own lines, or with
    `fence`, a fenced block with that info string (its rows as they are, never escaped)."""
    if not has_math(markdown):
        return markdown
    lines = markdown.split("\n")
    code = _code_lines(markdown)
    render = _Substitution(formula, escape, fence)
    out: list[str] = []
    start = 0
    for index in range(len(lines) + 1):
        if index == len(lines) or index in code:
            if start < index:  # a blank line ends any formula: each paragraph is scanned alone
                parts = _BLANK_LINE.split("\n".join(lines[start:index]))
                out.append("".join(part if number % 2 else render.prose(part) for number, part in enumerate(parts)))
            if index < len(lines):
                out.append(lines[index])
            start = index + 1
    return "\n".join(out)


def _code_lines(markdown: str) -> set[int]:
    """Line numbers inside fenced or indented code blocks."""
    if not _FENCE_OR_INDENT.search(markdown):
        return set()
    lines: set[int] = set()
    for token in block_parser().parse(markdown):
        if token.type in ("fence", "code_block") and token.map:
            lines.update(range(*token.map))
    return lines


class _Substitution:
    """How each formula of one Markdown text is replaced (a plain class: see latex_layout.Box)."""

    __slots__ = ("formula", "escape", "fence")

    def __init__(self, formula: FormulaRenderer, escape: bool, fence: str | None) -> None:
        self.formula = formula
        self.escape = escape
        self.fence = fence

    def prose(self, text: str) -> str:
        """One run of lines outside code blocks: math converted, code spans skipped."""
        out: list[str] = []
        done = 0
        position = 0
        closers = _Closers(text)
        while (found := _NEXT.search(text, position)) is not None:
            at = found.start()
            char = text[at]
            if char == "`":
                position = _after_code_span(text, at)
                continue
            span = _math_at(text, at, closers)
            if span is None:
                position = at + (2 if char == "\\" else 1)
                continue
            end, latex, display = span
            out.append(text[done:at])
            converted, block = self.converted(text, at, text[at:end], latex, display)
            out.append(converted)
            done = position = end
            if block:  # the text after a display block starts its own line
                done = position = len(text) - len(text[done:].lstrip(" "))
        out.append(text[done:])
        return "".join(out)

    def converted(self, text: str, at: int, source: str, latex: str, display: bool) -> tuple[str, bool]:
        """The formula's replacement, and whether it is a block of its own lines."""
        line_start = text.rfind("\n", 0, at) + 1
        before = text[line_start:at]
        prefix = _continuation_prefix(before)
        if display and ">" in prefix:
            latex = re.sub(r"\n[ \t]*(?:>[ \t]?)+", "\n", latex)
        block = display and not before.lstrip().startswith("|")  # a table row stays one line
        try:
            rendered = self.formula(latex.strip(), block)
        except Unconvertible:
            return _raw(source, latex, block, prefix), block
        if not block:
            return self.escaped(rendered.replace("\n", " ")), False
        blank = prefix.rstrip()
        if self.fence is not None:
            ticks = "`" * max([3, *(len(run) + 1 for run in re.findall(r"`+", rendered))])
            rows = "\n".join(prefix + row for row in rendered.split("\n"))
            return f"\n{blank}\n{prefix}{ticks}{self.fence}\n{rows}\n{prefix}{ticks}\n{blank}\n{prefix}", True
        rows = "  \n".join(prefix + self.escaped(row) for row in rendered.split("\n"))
        return f"\n{blank}\n{rows}\n{blank}\n{prefix}", True

    def escaped(self, text: str) -> str:
        return escape_markdown(text) if self.escape else text


def _after_code_span(text: str, at: int) -> int:
    """Where the code span starting at `at` ends (CommonMark: the next run of as many backticks)."""
    run = len(text) - len(text[at:].lstrip("`"))
    ticks = run - at
    search = run
    while (close := text.find("`" * ticks, search)) != -1:
        after = close + ticks
        if (after >= len(text) or text[after] != "`") and text[close - 1] != "`":
            return after
        search = len(text) - len(text[close:].lstrip("`"))
    return run


class _Closers:
    """`text.find` that remembers: in a paragraph of many `\\(` and no `\\)` (a hostile reply), each
    opener would search to the end again, and the scan would take quadratic time."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: dict[str, tuple[int, int]] = {}

    def find(self, closer: str, start: int) -> int:
        searched_from, at = self.found.get(closer, (len(self.text) + 1, -1))
        if searched_from <= start and (at == -1 or at >= start):
            return at
        at = self.text.find(closer, start)
        self.found[closer] = (start, at)
        return at


def _math_at(text: str, at: int, closers: _Closers) -> tuple[int, str, bool] | None:
    """(end, latex, display) for the formula opening at `at`, or None if it is not one."""
    if text.startswith(("\\(", "\\["), at):
        closer = "\\)" if text[at + 1] == "(" else "\\]"
        close = closers.find(closer, at + 2)
        return _checked(text, at + 2, close, close + 2, display=closer == "\\]")
    if text[at] != "$" or (at > 0 and text[at - 1] == "\\"):
        return None
    if text.startswith("$$", at):
        close = closers.find("$$", at + 2)
        return _checked(text, at + 2, close, close + 2, display=True)
    if at + 1 >= len(text) or text[at + 1].isspace() or (at > 0 and text[at - 1].isalnum()):
        return None
    close = at + 1
    while (close := text.find("$", close)) != -1 and text[close - 1] == "\\":
        close += 1
    if close == -1 or text[close - 1].isspace() or (close + 1 < len(text) and text[close + 1].isalnum()):
        return None
    return _checked(text, at + 1, close, close + 1, display=False)


def _checked(text: str, start: int, close: int, end: int, display: bool) -> tuple[int, str, bool] | None:
    if close == -1:
        return None
    latex = text[start:close]
    if not latex.strip():
        return None
    return end, latex, display


def _continuation_prefix(before: str) -> str:
    """What the lines of a block placed here must start with to stay in the same list item or quote."""
    quote = _QUOTE.match(before)
    head = quote.group(0) if quote else ""
    marker = _LIST_MARKER.match(before, len(head))
    return head + " " * len(marker.group(0)) if marker else head


def _raw(source: str, latex: str, display: bool, prefix: str) -> str:
    """A formula left as LaTeX, shown as code so Markdown keeps every backslash."""
    if display:
        body = "\n".join(prefix + line.strip() for line in latex.strip().split("\n"))
        return f"\n{prefix.rstrip()}\n{prefix}```latex\n{body}\n{prefix}```\n{prefix.rstrip()}\n{prefix}"
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {source} {fence}" if source.startswith("`") or source.endswith("`") else f"{fence}{source}{fence}"


def escape_markdown(text: str) -> str:
    """Text that Markdown shows as written (no emphasis, links, tables or HTML from it)."""
    return _MARKDOWN_ACTIVE.sub(r"\\\1", text)
