"""One turn's assembly, the same for a chat's turn (the engine) and an eval's arm (ensemble_tui/eval).

A turn is built from its parts: a caller that guards the budget, the paper attached to each
provider's calls, the context the models read (prompts, history, who takes part), and the claim
mapper. Both the engine and the eval assemble their runners here and run them through
`run_turn`, so a mode and a style send the same requests from either. What differs between them
is handed in: the ledger and the cap, who hears the turn's events, whether a claim map is drawn.

The eval reaches core/turn only through this module, the events and the costs (an
import-linter contract): the names it needs of the runner and the caller are re-exported here.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ensemble_tui.core.chat.modes import Mode, RunMode, Style
from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.config import ProviderConfig
from ensemble_tui.core.prompts import PromptLibrary
from ensemble_tui.core.provider import Message, Provider, Reply
from ensemble_tui.core.settings import Settings
from ensemble_tui.core.store.budget_ledger import BudgetLedger, LocalLedger
from ensemble_tui.core.turn.auto import auto_outcome, run_auto
from ensemble_tui.core.turn.calls import CallPolicy, ModelCaller
from ensemble_tui.core.turn.claim_mapping import ClaimMapping
from ensemble_tui.core.turn.events import ClaimsLeftOut, EngineEvent
from ensemble_tui.core.turn.runner import TurnContext, TurnRunner
from ensemble_tui.core.turn.styles.table import STYLES

__all__ = [
    "CallPolicy",
    "ModelCaller",
    "TurnParts",
    "TurnRunner",
    "assemble",
    "auto_outcome",
    "claim_mapper",
    "run_turn",
]

Emit = Callable[[EngineEvent], None]


def _ignore(event: EngineEvent) -> None:
    """A turn no one watches (an eval's arm): its progress shows elsewhere."""


def claim_mapper(settings: Settings) -> str:
    """The model that draws the claim map: the configured claim mapper, else the aggregator."""
    return settings.claim_mapper or settings.aggregator


def paper_notes(providers: Mapping[str, Provider], pdf: Path | None) -> dict[str, str]:
    """How each provider gets the paper (kept beside its output); nothing without a paper."""
    if pdf is None:
        return {}
    return {name: getattr(provider, "pdf_note", None) or "" for name, provider in providers.items()}


@dataclass(frozen=True)
class TurnParts:
    """What one turn is assembled from, fixed as it starts: the providers and their settings,
    the prompts, how calls are made and where their money is reserved."""

    providers: Mapping[str, Provider]
    configs: Mapping[str, ProviderConfig]
    settings: Settings  # its budget_usd is the cap the calls are reserved against
    prompts: PromptLibrary
    cache: Path  # where the paper's text is cached (the claim map's quote checks)
    policy: CallPolicy = field(default_factory=CallPolicy)
    ledger: BudgetLedger = field(default_factory=LocalLedger)
    rng: random.Random = field(default_factory=random.Random)
    emit: Emit = _ignore
    spent_before: float = 0.0  # the chat's cost as the turn began (an eval: none)
    warned_models: set[str] = field(default_factory=set)  # one "no prices known" notice per model
    simulated: bool = False

    def caller(self, pdf: Path | None) -> ModelCaller:
        """The turn's caller: every call sends `pdf` (unless it asks for JSON) and is reserved
        against the settings' cap in the ledger."""
        return ModelCaller(
            providers=dict(self.providers),
            configs=self.configs,
            settings=self.settings,
            policy=self.policy,
            emit=self.emit,
            pdf=pdf,
            spent_before=self.spent_before,
            warned_models=self.warned_models,
            ledger=self.ledger,
            simulated=self.simulated,
        )


def assemble(
    parts: TurnParts,
    mode: RunMode,
    style: Style,
    query: str,
    record: TurnRecord,
    *,
    participants: tuple[str, ...],
    pdf: Path | None = None,
    history: tuple[Message, ...] = (),
    aggregator: str | None = None,
    reused: Mapping[str, str] | None = None,
    failures: Mapping[str, str] | None = None,
    map_claims: bool = True,
) -> TurnRunner:
    """The runner of one turn in `mode` and `style`: `participants` that can be called propose,
    `aggregator` (default: the settings') aggregates, `reused` proposals stand in for their
    models' calls, `failures` are the proposers already left out. A multi-model turn draws the
    claim map (with the settings' map on and `map_claims`) by `claim_mapper`; a mapper that
    cannot be called is said once and the turn runs without the map."""
    caller = parts.caller(pdf)
    context = TurnContext(
        mode=mode,
        style=style,
        query=query,
        history=history,
        prompts=parts.prompts,
        proposers=tuple(name for name in participants if name in caller.providers),
        aggregator=aggregator or parts.settings.aggregator,
        debate_rounds=parts.settings.debate_rounds,
        caller=caller,
        rng=parts.rng,
        pdf_notes=paper_notes(parts.providers, pdf),
    )
    runner = TurnRunner(context, parts.emit, record, failures=dict(failures or {}), reused=dict(reused or {}))
    if map_claims:
        runner.claim_mapping = _claim_mapping(parts, mode, pdf)
    return runner


def _claim_mapping(parts: TurnParts, mode: RunMode, pdf: Path | None) -> ClaimMapping | None:
    """None for a single model, with the map off, or a mapper without a key (said as a ClaimsLeftOut)."""
    if not mode.is_multi or not parts.settings.claim_map:
        return None
    mapper = claim_mapper(parts.settings)
    if mapper not in parts.providers:
        parts.emit(ClaimsLeftOut(f"the claim mapper {mapper} is not available"))
        return None
    return ClaimMapping(mapper, pdf, parts.cache)


async def run_turn(runner: TurnRunner) -> Reply:
    """The turn's reply, by its mode: auto's pair first, a multi-model style, or one model."""
    context = runner.context
    if context.mode is Mode.AUTO:
        return await run_auto(runner, context.query)
    if context.mode.is_multi:
        return await STYLES[context.style].run(runner, context.query)
    return await runner.run_single()
