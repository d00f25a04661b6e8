"""Who wrote a final reply, kept beside its text: one line, and the tally of a vote.

The reply's text is what later turns send to models, so it must stay anonymous: the names of
models and makers live here, shown to the user (chat, transcript, exports) and never sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field
from pydantic.dataclasses import dataclass

from ensemble_tui.core.chat.modes import RunMode, Style


@dataclass(frozen=True)
class VoteRow:
    """One answer's place in the tally of a council, vote or debate (best first)."""

    author: str
    rank: int
    points: float
    first_places: int
    mean_overall: float | None = None
    mean_correctness: float | None = None
    average_position: float | None = None
    ballots: int = 0
    medal: str | None = None


class Provenance(BaseModel):
    """The line shown with a reply ("All · aggregator gpt-5 · 3 of 3 proposals") and, for a
    council, vote or debate, its tally."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    line: str
    style: str | None = None  # the tally's style
    tally: list[VoteRow] = Field(default_factory=list)


def points(value: float) -> str:
    """ "1 pt", "9 pts", "2.5 pts"."""
    return f"{value:g} pt" + ("" if value == 1 else "s")


_REASON_CUT = re.compile(r" - | \(|; |\. ")


def short_reason(provider: str, message: str) -> str:
    """A failure in a few words: "rate limited" from "Gemini: rate limited (429) - try later"."""
    text = message.removeprefix(f"{provider}:").strip()
    text = _REASON_CUT.split(text, maxsplit=1)[0].strip().rstrip(".")
    return text if len(text) <= 40 else text[:39].rstrip() + "…"


def describe(
    mode: RunMode,
    style: Style,
    models: Mapping[str, str],
    *,
    participants: Sequence[str],
    answered: Sequence[str],
    failures: Mapping[str, str],
    aggregator: str,
    tally: Sequence[VoteRow] = (),
) -> Provenance:
    """The provenance of a final reply; `models` maps each provider to its model id."""
    if not mode.is_multi:
        (provider,) = participants
        return Provenance(line=f"{mode.label} · {models.get(provider, provider)}")
    parts = [mode.label]
    count = f"{len(answered)} of {len(participants)}"
    winner = tally[0] if tally else None
    if style is Style.AGGREGATE:
        parts += [f"aggregator {models.get(aggregator, aggregator)}", f"{count} proposals"]
    elif style is Style.COUNCIL:
        parts += [style.label, f"chairman {models.get(aggregator, aggregator)}", f"{count} answers"]
    elif winner is not None and style is Style.DEBATE:  # words, not the medals' "gold gpt-5"
        parts += [style.label, f"{models.get(winner.author, winner.author)} won the debate ({points(winner.points)})"]
    elif winner is not None:
        parts += [style.label, f"winner {models.get(winner.author, winner.author)} ({points(winner.points)})"]
    else:
        parts.append(style.label)
    parts += [f"{name} failed: {short_reason(name, reason)}" for name, reason in failures.items()]
    return Provenance(line=" · ".join(parts), style=style.value if tally else None, tally=list(tally))


AUTO_PREFIX = "auto"


def auto_agreed(calls: int, who: str) -> Provenance:
    """An auto turn whose two answers agreed: `auto · 2 calls · agreed · gpt-5 ×2`."""
    return Provenance(line=" · ".join([AUTO_PREFIX, f"{calls} calls", "agreed", who]))


def auto_escalated(why: str, full: Provenance) -> Provenance:
    """An auto turn that ran the full turn on top: `auto · escalated: 1 disputed claim`, then
    what the full turn's own line says after its mode (`aggregator gpt-5 · 3 of 3 proposals`)."""
    _, _, rest = full.line.partition(" · ")
    line = " · ".join(part for part in (AUTO_PREFIX, f"escalated: {why}", rest) if part)
    return full.model_copy(update={"line": line})
