"""How a council, vote or debate shows its progress in the chat: one line that fills in as the
reviews arrive, then a small table of the tally.

Both are notices of this run of the app (like error lines), not part of the chat history; the
full record, ballots included, is in the run report (Ctrl+R).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.ui.chat_log.rendering import plain

if TYPE_CHECKING:  # imported with the engine, on the first turn
    from ensemble_tui.core.chat.provenance import VoteRow

MEDALS = {"gold": "🥇 gold", "silver": "🥈 silver", "bronze": "🥉 bronze"}
REVIEW_KIND = {Style.VOTE: "Critiques"}  # councils and debates ask for rankings


@dataclass(frozen=True)
class ReviewOutcome:
    accepted: bool
    problem: str | None = None


def review_line(style: Style, reviews: Mapping[str, ReviewOutcome]) -> str:
    """ "Rankings: ChatGPT ✓ · Gemini ✗ unreadable, left out (no FINAL RANKING list)"."""
    parts = []
    for reviewer, outcome in reviews.items():
        if outcome.accepted:
            parts.append(f"{reviewer} ✓")
        else:
            why = f" ({outcome.problem})" if outcome.problem else ""
            parts.append(f"{reviewer} ✗ unreadable, left out{why}")
    return f"{REVIEW_KIND.get(style, 'Rankings')}: " + " · ".join(parts)


def _number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


Column = tuple[str, Callable[["VoteRow"], str], str]  # heading, cell, justify

_COLUMNS: dict[Style, tuple[Column, ...]] = {
    Style.COUNCIL: (
        ("average position", lambda row: _number(row.average_position), "right"),
        ("ballots", lambda row: str(row.ballots), "right"),
    ),
    Style.VOTE: (
        ("Borda points", lambda row: f"{row.points:g}", "right"),
        ("first places", lambda row: str(row.first_places), "right"),
        ("mean overall", lambda row: _number(row.mean_overall), "right"),
        ("mean correctness", lambda row: _number(row.mean_correctness), "right"),
    ),
    Style.DEBATE: (
        ("Borda points", lambda row: f"{row.points:g}", "right"),
        ("first places", lambda row: str(row.first_places), "right"),
        ("medal", lambda row: MEDALS.get(row.medal or "", row.medal or ""), "left"),
    ),
}
_TITLES = {
    Style.COUNCIL: "Council: aggregate ranking (lower average position is better)",
    Style.VOTE: "Critique & vote: Borda count",
    Style.DEBATE: "Debate: final ranking",
}


def vote_table(style: Style, rows: Sequence[VoteRow]) -> RenderableType:
    """The tally as a compact table, best first; model names are shown as plain text."""
    columns = _COLUMNS.get(style, _COLUMNS[Style.VOTE])
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold", pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("model")
    for heading, _cell, justify in columns:
        table.add_column(heading, justify=justify)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(str(row.rank), plain(row.author), *(cell(row) for _heading, cell, _justify in columns))
    title = Text(_TITLES.get(style, style.label), style="bold")
    return Group(title, table)
