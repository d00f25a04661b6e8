"""Auto mode (issue 27 §3): pay for the full turn only when two cheap answers disagree.

1. The cheapest provider the settings mark as strong (`Settings.strong`, priced by its selected
   model's configured input + output price per million tokens; the settings' order breaks a tie)
   answers twice: two samples of it, or, with `auto_pair = "two-models"`, the two cheapest
   answer once each.
2. The claim map is drawn on the two answers (the turn's own ClaimMapping: anonymous, shuffled
   letters, its paper checks) and both answers' quotes are checked against the PDF. No
   contradiction and no quote marked ✗: the answer with more verified quotes (the first on a
   tie) is the reply, in two calls plus the map's.
3. Otherwise the turn's style runs on top with the two answers in `TurnRunner.reused`: their
   models make no new proposer call. Two samples of one model give that model ONE proposal
   (the one with more verified quotes); the other is set aside, kept in the run record, and
   reaches no model: the styles ask every proposal's author to revise or review, and a second
   sample has no author of its own to ask.

`run_auto(runner, query)` is the whole flow, callable like a style; the assembly's `run_turn`
(core/turn/assembly.py) dispatches an auto turn to it, for the engine and the eval alike. Its
outcome is kept as an `auto` artifact in the run record (`auto_outcome`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from ensemble_tui.core.chat.provenance import Provenance, auto_agreed, auto_escalated
from ensemble_tui.core.chat.runlog import Artifact, TurnRecord
from ensemble_tui.core.claims.model import ClaimMap
from ensemble_tui.core.config import CAUTIOUS_PRICES
from ensemble_tui.core.paper import quote_checks
from ensemble_tui.core.provider import Reply
from ensemble_tui.core.text.counts import plural
from ensemble_tui.core.turn.calls import ModelCaller
from ensemble_tui.core.turn.claim_mapping import ClaimMapping
from ensemble_tui.core.turn.events import StatusChanged
from ensemble_tui.core.turn.runner import TurnRunner, user_message
from ensemble_tui.core.turn.styles.table import STYLES

AUTO_KIND = "auto"  # the run record's artifact that says what auto decided and why
SECOND_SAMPLE = "{} #2"  # how a model's second sample is named to the user (never to a model)


@dataclass(frozen=True)
class AutoPair:
    """Who answers first: one provider twice (samples) or two providers once each."""

    first: str
    second: str

    @property
    def samples(self) -> bool:
        return self.first == self.second

    @property
    def keys(self) -> tuple[str, str]:
        """The two answers' names in the run record and the map (the user's, never a model's)."""
        return (self.first, SECOND_SAMPLE.format(self.first)) if self.samples else (self.first, self.second)

    def provider_of(self, key: str) -> str:
        return self.first if key == self.keys[1] and self.samples else key


def price(caller: ModelCaller, provider: str) -> float:
    """Input + output USD per million tokens of the provider's selected model; an unknown
    price counts as the cautious one, so an unpriced model is never taken for the cheapest."""
    spec = caller.configs[provider].spec_or_cautious(caller.model_for(provider))
    cost_in = spec.input if spec.input is not None else CAUTIOUS_PRICES["input"]
    cost_out = spec.output if spec.output is not None else CAUTIOUS_PRICES["output"]
    return cost_in + cost_out


def choose_pair(caller: ModelCaller) -> AutoPair | None:
    """The pair the settings ask for among the strong providers that can be called; None if none can."""
    settings = caller.settings
    strong = [name for name in dict.fromkeys(settings.strong) if name in caller.providers and name in caller.configs]
    if not strong:
        return None
    ranked = sorted(strong, key=partial(price, caller))  # stable: the settings' order breaks a tie
    if settings.auto_pair == "two-models" and len(ranked) > 1:
        return AutoPair(ranked[0], ranked[1])
    return AutoPair(ranked[0], ranked[0])


@dataclass(frozen=True)
class Agreement:
    """What the map and the quote checks say of the two answers."""

    claim_map: ClaimMap | None
    disputed: int
    missing_quotes: int
    verified: dict[str, int]  # answer key -> its quotes found in the paper

    @property
    def agreed(self) -> bool:
        return self.claim_map is not None and not self.disputed and not self.missing_quotes

    @property
    def why(self) -> str:
        """Why it escalated: `1 disputed claim`, `a quote not in the paper`, `no map`."""
        if self.claim_map is None:
            return "no map"
        reasons = []
        if self.disputed:
            reasons.append(plural(self.disputed, "disputed claim"))
        if self.missing_quotes:
            reasons.append(plural(self.missing_quotes, "quote", "not in the paper"))
        return ", ".join(reasons)


class SettledMap:
    """The claim map drawn already (the pair's): what the engine settles when the pair agreed."""

    def __init__(self, claim_map: ClaimMap) -> None:
        self.claim_map = claim_map

    def start(self, runner: TurnRunner, proposals: dict[str, str]) -> None:
        """Nothing: no pass follows an agreed pair."""

    async def in_hand(self) -> tuple[bool, ClaimMap | None]:
        return False, self.claim_map

    async def late(self) -> ClaimMap | None:
        return self.claim_map

    async def abandon(self) -> None:
        """Nothing is out."""


async def run_auto(runner: TurnRunner, query: str) -> Reply:
    """The auto turn: the pair, then the reply it agreed on or the full turn on top of it."""
    mapping = runner.claim_mapping
    pair = choose_pair(runner.context.caller)
    if not isinstance(mapping, ClaimMapping):  # the map off, or no mapper: agreement cannot be told
        return await _escalate(runner, query, "no map", pair, {}, {})
    if pair is None:
        return await _escalate(runner, query, "no strong model available", pair, {}, {})
    answers = await _ask_pair(runner, pair, query)
    if len(answers) < 2:
        return await _escalate(runner, query, "an answer failed", pair, answers, {})
    agreement = await _judge(runner, mapping, answers)
    if not agreement.agreed:
        return await _escalate(runner, query, agreement.why, pair, answers, agreement.verified)
    chosen = _best(answers, agreement.verified)
    assert agreement.claim_map is not None
    runner.claim_mapping = SettledMap(agreement.claim_map)
    caller = runner.context.caller
    who = (
        f"{caller.model_for(pair.first)} ×2"
        if pair.samples
        else f"{caller.model_for(pair.first)} & {caller.model_for(pair.second)}"
    )
    _note(
        runner,
        f"Auto: {_pair_phrase(pair)} agreed ({agreement.claim_map.summary}); the reply is {chosen}'s answer"
        f" ({plural(agreement.verified.get(chosen, 0), 'verified quote')}). No other model was asked.",
        agreed=True,
        why="",
        pair=pair,
        calls=len(answers),
        who=who,
        chosen=chosen,
        agreement=agreement,
    )
    runner.emit(StatusChanged(f"Auto: the two answers agree ({agreement.claim_map.summary})"))
    return answers[chosen]


async def _ask_pair(runner: TurnRunner, pair: AutoPair, query: str) -> dict[str, Reply]:
    """The two answers, asked together as proposers; a failed one is left out."""
    history = runner.history()
    prompts = runner.prompts
    jobs = {
        key: partial(
            runner.call,
            pair.provider_of(key),
            "proposer",
            prompts.proposer_system(pair.provider_of(key)),
            user_message(history, query),
        )
        for key in pair.keys
    }
    runner.round += 1
    started = time.monotonic()

    def done(key: str, reply: Reply) -> None:
        if pair.samples and key == pair.keys[1]:  # a second sample: no pane of its own, in the record
            runner.record.artifacts.append(Artifact("answer", key, reply.text, round=runner.round))
        else:
            runner.remember(key, query, reply.text)  # shown in its model's pane

    try:
        answers = await runner.gather(jobs, status=f"Auto: asking {_pair_phrase(pair)}…", on_done=done)
    finally:
        runner.keep_asked_order(list(pair.keys))
    runner.record.proposers_s.append(runner.timed(started))
    return {key: answers[key] for key in pair.keys if key in answers}


async def _judge(runner: TurnRunner, mapping: ClaimMapping, answers: dict[str, Reply]) -> Agreement:
    """The pair's claim map and both answers' quote checks, drawn side by side."""
    runner.emit(StatusChanged("Auto: mapping the two answers' claims…", answered=tuple(answers)))
    texts = {key: reply.text for key, reply in answers.items()}
    mapping.start(runner, texts)
    wait_s = runner.context.caller.policy.timeout_s * 2 + 5  # the map and its one repair; the reply waits for it
    claim_map, checks = await asyncio.gather(
        mapping.settle(runner, wait_s), quote_checks.check_texts(texts, mapping.pdf, mapping.cache_dir)
    )
    missing_checked: set[str] = set()
    verified: dict[str, int] = {}
    for key, found in checks.items():
        if found.get("notice"):
            continue
        quotes = found.get("quotes", [])
        verified[key] = sum(1 for quote in quotes if quote.get("page") is not None)
        missing_checked |= {_norm(q["text"]) for q in quotes if q.get("page") is None}
        missing_checked |= {_norm(r["text"]) for r in found.get("references", []) if r.get("found") is False}
    missing_mapped: set[str] = set()
    if claim_map is not None:
        for claim in claim_map.claims:
            for stance in claim.stances.values():
                if stance.evidence is not None and stance.evidence.found is False:
                    missing_mapped.add(_norm(stance.evidence.quote))
    return Agreement(
        claim_map=claim_map,
        disputed=claim_map.count("contradiction") if claim_map is not None else 0,
        # The checker and the mapper may word one misquote differently: the larger count, not the sum.
        missing_quotes=max(len(missing_checked), len(missing_mapped)),
        verified=verified,
    )


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _best(answers: Mapping[str, Reply], verified: Mapping[str, int]) -> str:
    """The answer with more verified quotes; the first on a tie."""
    keys = list(answers)
    return max(keys, key=lambda key: (verified.get(key, 0), -keys.index(key)))


async def _escalate(
    runner: TurnRunner,
    query: str,
    why: str,
    pair: AutoPair | None,
    answers: dict[str, Reply],
    verified: Mapping[str, int],
) -> Reply:
    """The full turn in the runner's style, the pair's answers standing in for their models'
    first proposals (one per model: a model's better sample)."""
    proposers = runner.context.proposers
    reused: dict[str, str] = {}  # provider -> its answer
    reused_keys: list[str] = []
    set_aside: dict[str, str] = {}  # the answer's key -> the name the user sees it under
    for key in sorted(answers, key=lambda k: -verified.get(k, 0)):  # stable: the first sample on a tie
        provider = pair.provider_of(key) if pair is not None else key
        if provider in proposers and provider not in reused:
            reused[provider] = answers[key].text
            reused_keys.append(key)
        else:  # a model's other sample keeps the second sample's name, whichever came first
            set_aside[key] = SECOND_SAMPLE.format(provider) if provider in reused else key
    # The reused answers come back as the full turn's first proposals (first_answers records
    # them again), so the pair's round is that round: its copies leave the record; a sample set
    # aside stays, under its own kind, so Compare never shows it as a proposal the turn read.
    artifacts = runner.record.artifacts
    for artifact in [a for a in artifacts if a.kind == "answer" and a.round == runner.round]:
        if artifact.author in reused_keys:
            artifacts.remove(artifact)
        elif artifact.author in set_aside:
            artifact.kind, artifact.author = "auto-sample", set_aside[artifact.author]
    runner.round = 0
    runner.reused.update(reused)
    style = runner.context.style
    saved = f"; {plural(len(reused), 'answer')} reused, no new call for " + ", ".join(reused) if reused else ""
    names = ", ".join(set_aside.values())
    aside = f"; {names} set aside (a second sample has no author to revise it)" if set_aside else ""
    asked = _pair_phrase(pair) if pair is not None and answers else "no pair"
    _note(
        runner,
        f"Auto escalated: {why}. First answers: {asked}. The full All turn ({style.label}) ran on top{saved}{aside}.",
        agreed=False,
        why=why,
        pair=pair,
        calls=len(answers),
        reused=list(reused),
        set_aside=list(set_aside.values()),
    )
    runner.emit(StatusChanged(f"Auto escalated ({why}): asking the others…", answered=tuple(reused)))
    return await STYLES[style].run(runner, query)


def _pair_phrase(pair: AutoPair) -> str:
    return f"{pair.first} twice" if pair.samples else f"{pair.first} and {pair.second}"


def _note(
    runner: TurnRunner, text: str, *, agreed: bool, why: str, pair: AutoPair | None, calls: int, **extra: Any
) -> None:
    """Keep what auto decided in the run record (the report's Auto section, the provenance)."""
    agreement = extra.pop("agreement", None)
    data: dict[str, Any] = {
        "agreed": agreed,
        "why": why,
        "pair": list(pair.keys) if pair is not None else [],
        "samples": pair.samples if pair is not None else False,
        "calls": calls,
        **extra,
    }
    if isinstance(agreement, Agreement):
        data["verified"] = dict(agreement.verified)
    runner.record.artifacts.append(Artifact(AUTO_KIND, "", text, data=data))


@dataclass(frozen=True)
class AutoOutcome:
    """What an auto turn decided, read back from its run record (for the eval and the provenance)."""

    agreed: bool
    why: str
    calls: int
    who: str = ""
    reused: tuple[str, ...] = ()
    chosen: str = ""  # the agreed answer's key: a provider, or its second sample ("ChatGPT #2")

    @property
    def chosen_provider(self) -> str:
        """Whose model wrote the agreed answer (a second sample is its model's)."""
        return self.chosen.removesuffix(SECOND_SAMPLE.format(""))


def auto_outcome(record: TurnRecord) -> AutoOutcome | None:
    """The auto decision kept in `record`; None for a turn that was not auto (or ended before it)."""
    for artifact in reversed(record.artifacts):
        if artifact.kind == AUTO_KIND:
            data = artifact.data
            return AutoOutcome(
                agreed=bool(data.get("agreed")),
                why=str(data.get("why", "")),
                calls=int(data.get("calls", 0)),
                who=str(data.get("who", "")),
                reused=tuple(data.get("reused", ())),
                chosen=str(data.get("chosen", "")),
            )
    return None


def auto_provenance(record: TurnRecord, full: Provenance) -> Provenance:
    """The line of an auto reply: `auto · 2 calls · agreed · gpt-5 ×2`, or `auto · escalated:
    1 disputed claim · ` then the full turn's line; `full` as is if auto decided nothing."""
    outcome = auto_outcome(record)
    if outcome is None:
        return full
    if outcome.agreed:
        return auto_agreed(outcome.calls, outcome.who)
    return auto_escalated(outcome.why, full)
