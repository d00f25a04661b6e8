"""The text the search index holds for a message, and a user's query made safe for FTS5.

Indexed text is normalised so that LaTeX is found by the words a reader types: `\\mathrm{softmax}`
is indexed as `softmax`, `\\alpha` as `alpha`; the layout commands (`\\mathrm`, `\\frac`, `\\left`)
and the math punctuation (`$`, braces, `^`, `_`) are dropped, since nobody searches for them. A
regular expression, not the math converter (core/math/latex_unicode.py): indexing a home of
10,000 turns must take seconds, and Unicode symbols (`α`) are not what a reader types.

A query is never passed to FTS5 as the user typed it (a stray quote or `NOT` would be a syntax
error, or a different query): it is read as words, "exact phrases", prefixes (`transform*`) and
`-excluded` terms, and each becomes a quoted FTS5 string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# LaTeX commands that only lay out or style what follows them: dropped, their argument kept.
_LAYOUT = frozenset(
    """
    mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak mathscr mathnormal boldsymbol bm
    operatorname mathop text textrm textit textbf textsf texttt textnormal emph mbox hbox
    frac dfrac tfrac cfrac sqrt left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr
    begin end displaystyle textstyle scriptstyle limits nolimits quad qquad hat bar tilde vec dot
    ddot overline underline widehat widetilde overbrace underbrace mathring cdot cdots ldots dots
    label tag nonumber notag
    """.split()
)
_LAYOUT_COMMAND = r"\\(?:" + "|".join(sorted(_LAYOUT, key=len, reverse=True)) + r")(?![A-Za-z])"
# Layout commands and math punctuation, in runs. What is left of another command is its name, a
# word: `\alpha` reads `alpha`.
_MATH_NOISE = re.compile(rf"(?:{_LAYOUT_COMMAND}|[\\{{}}$^_&])+")


def searchable(text: str) -> str:
    """`text` as the index holds it: LaTeX commands read as words, layout commands dropped.

    A dropped run becomes a space only where it stood between two letters or digits (`QK^T` is
    `QK T`, `d_k` is `d k`: the words stay apart), else nothing, so that a snippet, cut from this
    text, reads `softmax(QK T/d k)V` rather than `softmax (QK T/  d k )V`. The words, and so what
    a query finds, are the same either way."""
    if "\\" not in text and "$" not in text:
        return text
    return _MATH_NOISE.sub(_gap, text)


def _gap(run: re.Match[str]) -> str:
    text, start, end = run.string, run.start(), run.end()
    return " " if 0 < start and end < len(text) and text[start - 1].isalnum() and text[end].isalnum() else ""


_WORD = re.compile(r"\w+")
# A term: an optional `-`, then a quoted phrase (its closing quote optional) or a run of non-space.
_TERM = re.compile(r'(-?)(?:"([^"]*)"?|(\S+))')


@dataclass(frozen=True)
class Query:
    """A parsed query: `fts` is the FTS5 expression (None: nothing to look for), `words` the
    words looked for (what the chat marks in a message it opens at)."""

    fts: str | None
    words: tuple[str, ...]


def _quoted(words: list[str]) -> str:
    # \w+ never holds a double quote, so quoting needs no escape.
    return '"' + " ".join(words) + '"'


def parse_query(text: str) -> Query:
    """The user's query as a safe FTS5 expression: every term ANDed, the `-` ones excluded.

    A term's words are what the index's tokenizer would make of it (`foo-bar` is the phrase
    "foo bar"); a trailing `*` on a bare word makes it a prefix. A query of excluded terms
    alone finds nothing (FTS5 has no "everything but")."""
    wanted: list[str] = []
    unwanted: list[str] = []
    words: list[str] = []
    for match in _TERM.finditer(text):
        negative, phrase, bare = match.group(1), match.group(2), match.group(3)
        prefix = bare is not None and bare.endswith("*")
        found = _WORD.findall(searchable(phrase if phrase is not None else bare or ""))
        if not found:
            continue
        term = _quoted(found) + (" *" if prefix else "")
        (unwanted if negative else wanted).append(term)
        if not negative:
            words.extend(found)
    if not wanted:
        return Query(None, ())
    expression = " AND ".join(wanted)
    if unwanted:
        expression = f"({expression}) NOT ({' OR '.join(unwanted)})"
    return Query(expression, tuple(words))
