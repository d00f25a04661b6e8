"""The history's search results: every question, reply, proposal or claim a query finds, across
every chat (core/store/search_index.py), two lines each: the chat's date, what it is and the
chat's name, then a snippet with the matched words highlighted.

Everything shown is model or user text: each line is built as a Rich Text from plain strings,
so markup in it stays inert, and control characters are stripped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ensemble_tui.core.store.search_index import MATCH_END, MATCH_START, Hit
from ensemble_tui.core.text.sanitize import strip_control

KIND_LABELS = {
    "question": "question",
    "reply": "reply",
    "proposal": "proposal",
    "claim": "claim",
    "name": "chat name",
}
MATCH_STYLE = "bold reverse"


@dataclass(frozen=True)
class FoundMessage:
    """What the history returns for a search result: the chat to open, the message to open it at
    (its place in the chat's messages; -1: the chat's name, no message) and the words to mark."""

    session: str
    position: int
    words: tuple[str, ...]


def hit_date(hit: Hit) -> str:
    """ "2026-01-02T09:30:12" -> "2026-01-02 09:30"."""
    return hit.at[:16].replace("T", " ")


def highlighted(snippet: str) -> Text:
    """The snippet on one line, its matches styled; nothing in it is read as markup."""
    text = Text(end="", no_wrap=True, overflow="ellipsis")
    style: str | None = None
    for part in _MARKERS.split(snippet):
        if part == MATCH_START:
            style = MATCH_STYLE
        elif part == MATCH_END:
            style = None
        elif part:
            text.append(_SPACES.sub(" ", strip_control(part)), style=style)
    return text


_MARKERS = re.compile(f"([{MATCH_START}{MATCH_END}])")
_SPACES = re.compile(r"\s+")


def result_prompt(hit: Hit, name_chars: int) -> Text:
    """Two lines: date · kind · chat name, then the snippet."""
    name = " ".join(strip_control(hit.chat_name).split())
    name = name if len(name) <= name_chars else name[: max(1, name_chars - 1)] + "…"
    first = Text(end="", no_wrap=True, overflow="ellipsis")
    first.append(hit_date(hit), style="dim")
    first.append("  ")
    first.append(KIND_LABELS.get(hit.kind, hit.kind), style="bold")
    first.append("  ")
    first.append(name)
    return Text("\n", end="").join([first, Text("  ", end="") + highlighted(hit.snippet)])


class SearchResults(OptionList):
    """The results of the last query; selecting one posts OptionList.OptionSelected whose
    option id is the result's index in `hits`."""

    DEFAULT_CSS = """
    SearchResults { height: auto; max-height: 12; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, compact=True)
        self.hits: list[Hit] = []

    def show_hits(self, hits: Sequence[Hit], name_chars: int) -> None:
        self.hits = list(hits)
        self.clear_options()
        self.add_options([Option(result_prompt(hit, name_chars), id=str(index)) for index, hit in enumerate(hits)])
        if hits:
            self.highlighted = 0

    def chosen(self) -> Hit | None:
        index = self.highlighted
        return self.hits[index] if index is not None and 0 <= index < len(self.hits) else None
