"""The table of deliberation styles: how each runs a multi-model turn and which prompts it reads.

Listed here, explicitly, rather than registered as a side effect of importing the style modules:
whoever imports the table gets every style.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.core.provider import Reply
from ensemble_tui.core.turn.runner import TurnRunner
from ensemble_tui.core.turn.styles.aggregate import run_aggregator_loop
from ensemble_tui.core.turn.styles.council import run_council
from ensemble_tui.core.turn.styles.debate import run_debate
from ensemble_tui.core.turn.styles.vote import run_vote

StyleFlow = Callable[[TurnRunner, str], Awaitable[Reply]]


@dataclass(frozen=True)
class StyleEntry:
    """A style's turn, and the `Prompts/Deliberation/` files it reads (checked before any call)."""

    run: StyleFlow
    prompts: tuple[str, ...] = ()
    uses_aggregator_prompts: bool = False


STYLES: dict[Style, StyleEntry] = {
    Style.AGGREGATE: StyleEntry(run_aggregator_loop, uses_aggregator_prompts=True),
    Style.COUNCIL: StyleEntry(run_council, ("RankingPrompt", "RankingRepairPrompt", "ChairmanPrompt")),
    Style.VOTE: StyleEntry(run_vote, ("CritiquePrompt", "CritiqueRepairPrompt")),
    Style.DEBATE: StyleEntry(
        run_debate, ("DebateRoundPrompt", "DebateRepairPrompt", "RankingPrompt", "RankingRepairPrompt")
    ),
}
