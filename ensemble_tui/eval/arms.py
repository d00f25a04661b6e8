"""The eval's arms: what each is, and one arm's answer to one question.

An arm runs on a scratch turn, assembled as a chat's turn of the same mode and style is
(core/turn/assembly.py), so it sends the same requests; it has a caller of its own and no
session at all. Nothing it does reaches a chat, a transcript or the engine's commit; only its
calls' money enters the budget ledger, under the eval's key.

Arms are named as `ask`'s modes and styles: a single model (`chatgpt`, `claude`, `gemini`, an
added provider), `self-K` (one model sampled K times, then aggregated by itself through the
aggregate style: the K samples are K aliases of the same provider), `all` (aggregate), `council`,
`vote`, `debate`, and `auto` (as `ask --mode auto`). Aggregate, council and vote share one set
of first proposals: the first of them to run asks the models, the others reuse its proposals.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ensemble_tui.core.chat.modes import Mode, RunMode, SingleModel, Style, parse_run_mode
from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.chat.session import answered_turns
from ensemble_tui.core.config import ProviderConfig
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.paper import quote_checks
from ensemble_tui.core.paper.pdf import check_pdf
from ensemble_tui.core.paper.quotes import QuoteReport
from ensemble_tui.core.prompts import PromptLibrary
from ensemble_tui.core.provider import Provider, ProviderError, Reply
from ensemble_tui.core.settings import Settings
from ensemble_tui.core.store.budget_ledger import BudgetLedger, Reservation, Sizing
from ensemble_tui.core.turn.assembly import (
    CallPolicy,
    ModelCaller,
    TurnParts,
    TurnRunner,
    assemble,
    auto_outcome,
    run_turn,
)
from ensemble_tui.core.turn.costs import BudgetExceeded
from ensemble_tui.eval.model import ArmAnswer, EvalQuestion

SHARING = (Style.AGGREGATE, Style.COUNCIL, Style.VOTE)  # styles whose first proposals are the same
STYLE_ARMS = {"all": Style.AGGREGATE, "council": Style.COUNCIL, "vote": Style.VOTE, "debate": Style.DEBATE}
_SELF = re.compile(r"^self(?:-(\d+))?$")
CONCURRENT_SHARES = 8  # calls of one eval in flight at once, at most about this many
SAMPLE_MARK = "#"  # "Claude#2": the second sample of Claude (a name no prompt ever shows)

ArmKind = Literal["single", "self", "style", "auto"]


@dataclass(frozen=True)
class Arm:
    name: str
    kind: ArmKind
    provider: str = ""  # the single model, or the model sampled by self-K
    samples: int = 0
    style: Style | None = None

    @property
    def baseline(self) -> bool:
        """A single-model arm: the report's best single model is one of these."""
        return self.kind == "single"


def parse_arms(text: str, configured: tuple[str, ...], samples: int, self_model: str) -> list[Arm]:
    """The arms of `--arms` (comma-separated), in order, each once; EnsembleError names a bad one."""
    extra = tuple(p for p in configured if p not in Mode.ALL.providers)
    arms: dict[str, Arm] = {}
    for raw in (part.strip().lower() for part in text.split(",")):
        if not raw:
            continue
        if raw in STYLE_ARMS:
            arm = Arm(raw, "style", style=STYLE_ARMS[raw])
        elif raw == "auto":
            arm = Arm(raw, "auto")
        elif match := _SELF.match(raw):
            k = int(match.group(1) or samples)
            if not 2 <= k <= 9:
                raise EnsembleError(f"Arm {raw}: sample between 2 and 9 times.")
            arm = Arm(f"self-{k}", "self", provider=self_model, samples=k)
        else:
            try:
                mode = parse_run_mode(raw, extra)
            except ValueError:
                names = ", ".join(["chatgpt", "claude", "gemini", *(p.lower() for p in extra)])
                raise EnsembleError(
                    f"Unknown arm {raw!r} (choose from {names}, self-K, all, council, vote, debate, auto)."
                ) from None
            if mode.is_multi:
                raise EnsembleError(f"Arm {raw!r} is not a single model; use all, council, vote or debate.")
            arm = Arm(raw, "single", provider=mode.providers[0])
        arms.setdefault(arm.name, arm)
    if not arms:
        raise EnsembleError("No arm to run (--arms is empty).")
    return list(arms.values())


JUDGING_PROMPTS = ("Judge", "Grade")  # prompt files the arms never read: editing them re-asks no answer


def arm_config(kit: ArmKit, arm: Arm) -> str:
    """A hash of what shapes the arm's answer: the arm itself, its models, the settings of its
    style and the text of the prompts it may read. A stored answer is reused only under the same
    hash, so a rerun with another `--self-model` or an edited prompt answers again."""
    settings = kit.settings
    if arm.kind in ("single", "self"):
        involved: tuple[str, ...] = (arm.provider,)
    else:
        involved = (*kit.participants, settings.aggregator)
        if arm.kind == "auto":
            involved += (settings.claim_mapper or settings.aggregator, *settings.strong)
    involved = tuple(dict.fromkeys(involved))
    parts: dict[str, object] = {
        "arm": [arm.name, arm.kind, arm.provider, arm.samples, arm.style.value if arm.style else None],
        "models": {p: settings.model_for(p, dict(kit.configs)) for p in involved if p in kit.configs},
        "reasoning": {p: settings.reasoning.get(p, "off") for p in involved},
        "temperature": settings.temperature,
    }
    if arm.kind in ("style", "auto", "self"):
        parts["style"] = {"aggregator": settings.aggregator, "debate_rounds": settings.debate_rounds}
    if arm.kind == "auto":
        parts["auto"] = {"strong": list(settings.strong), "pair": settings.auto_pair, "mapper": settings.claim_mapper}
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode())
    for path in sorted(kit.prompts.folder.rglob("*.txt")) if kit.prompts.folder.is_dir() else ():
        if path.name.startswith(JUDGING_PROMPTS):
            continue
        digest.update(str(path.relative_to(kit.prompts.folder)).encode())
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"<unreadable>")
    return digest.hexdigest()[:16]


def provider_label(name: str, configured: tuple[str, ...]) -> str:
    """A provider's label from any case of it (`claude` -> `Claude`); EnsembleError if unknown."""
    for label in configured:
        if label.lower() == name.strip().lower():
            return label
    raise EnsembleError(f"Unknown model {name!r} (choose from {', '.join(p.lower() for p in configured)}).")


class SampledPrompts(PromptLibrary):
    """The prompts of a self-K turn: each sample reads its model's own proposer prompts."""

    def proposer_system(self, provider: str) -> str:
        return super().proposer_system(provider.split(SAMPLE_MARK)[0])

    def synthesis_user(self, provider: str) -> str:
        return super().synthesis_user(provider.split(SAMPLE_MARK)[0])


@dataclass(frozen=True)
class Proposals:
    """The first proposals of a sharing style, handed to the next sharing arm."""

    arm: str
    texts: dict[str, str]
    seconds: float  # the proposal round's time: on the critical path of every arm that reuses it
    cost_usd: float = 0.0  # what the round's calls cost: an arm that reuses them would pay it alone


@dataclass
class ArmKit:
    """What every arm's scratch turn is built from: the workspace's providers and settings as the
    eval began, the eval's ledger and budget cap, and where the paper's text is cached."""

    providers: Mapping[str, Provider]
    configs: Mapping[str, ProviderConfig]
    settings: Settings
    prompts: PromptLibrary
    participants: tuple[str, ...]  # who answers in All
    ledger: Callable[[], BudgetLedger]  # a fresh reservation set per arm, all under the eval's key
    cache: Path
    budget_usd: float
    policy: CallPolicy = field(default_factory=CallPolicy)
    simulated: bool = False
    rng: random.Random = field(default_factory=random.Random)

    def parts(self, aliases: Mapping[str, str] | None = None, prompts: PromptLibrary | None = None) -> TurnParts:
        """What a scratch turn is assembled from: `aliases` (sample name -> provider) are known as
        their provider, and every call is reserved against the eval's cap, never a chat's."""
        aliases = dict(aliases or {})
        providers = {**self.providers, **{a: self.providers[p] for a, p in aliases.items()}}
        configs = {**self.configs, **{a: self.configs[p] for a, p in aliases.items()}}
        models = {
            **self.settings.models,
            **{a: self.settings.model_for(p, dict(self.configs)) for a, p in aliases.items()},
        }
        settings = self.settings.model_copy(update={"budget_usd": self.budget_usd, "models": models})
        return TurnParts(
            providers=providers,
            configs=configs,
            settings=settings,
            prompts=prompts or self.prompts,
            cache=self.cache,
            policy=self.policy,
            ledger=SharedLedger(self.ledger()),
            rng=self.rng,
            simulated=self.simulated,
        )

    def caller(self, pdf: Path | None) -> ModelCaller:
        """A caller outside any turn (a judge's, an estimate's), reserved against the eval's cap."""
        return self.parts().caller(pdf)


@dataclass
class SharedLedger:
    """The eval's ledger, with each call sized to a share of what is left: many calls are in
    flight at once, and a first call sized to the whole budget would leave none for the others.
    A call that does not fit in its share tries a larger one (a half, then all that is left), so
    the cap itself never moves."""

    inner: BudgetLedger
    shares: int = CONCURRENT_SHARES

    def reserve(self, spent_before: float, cap: float, size: Sizing) -> Reservation:
        def shared(remaining: float) -> tuple[int, float] | None:
            divisor = self.shares
            while divisor > 1:
                if (sized := size(remaining / divisor)) is not None:
                    return sized
                divisor //= 2
            return size(remaining)

        return self.inner.reserve(spent_before, cap, shared)

    def settle(self, reservation: Reservation, billed: float) -> None:
        self.inner.settle(reservation, billed)


async def run_arm(
    kit: ArmKit, arm: Arm, question: EvalQuestion, shared: Proposals | None = None
) -> tuple[ArmAnswer, Proposals | None]:
    """One arm's answer to one question (a failed one says why in one line), and, for a sharing
    style that asked its models, its first proposals. BudgetExceeded is let through: the eval stops."""
    started = time.monotonic()
    caller: ModelCaller | None = None
    try:
        pdf = check_pdf(question.pdf) if question.pdf else None
        runner = _runner(kit, arm, question, pdf, shared)
        caller = runner.context.caller
        reply = await run_turn(runner)
        if runner.claim_mapping is not None:  # an escalated auto turn's map, drawn and paid as in a chat
            await runner.claim_mapping.late()  # (abandoned, its call would count at its worst case)
        writer = _writer(runner, arm)
    except BudgetExceeded:
        raise
    except (EnsembleError, ProviderError, OSError) as exc:
        spent = caller.spent if caller else 0.0
        calls = len(caller.calls) if caller else 0
        line = exc.message if isinstance(exc, ProviderError) else str(exc)
        return ArmAnswer(
            question_id=question.id, arm=arm.name, text="", writer="", cost_usd=spent, calls=calls, failed=line
        ), None
    latency = time.monotonic() - started
    first = {a.author: a.text for a in runner.record.artifacts if a.kind == "answer" and a.round == 1}
    reused = shared is not None and arm.kind == "style" and arm.style in SHARING and bool(runner.reused)
    if reused and shared is not None:
        latency += shared.seconds
    checked, found = await _quotes(reply, pdf, kit.cache)
    answer = ArmAnswer(
        question_id=question.id,
        arm=arm.name,
        text=reply.text,
        writer=writer,
        contributors=_contributors(caller, first, arm),
        cost_usd=caller.spent,
        calls=len(caller.calls),
        latency_s=round(latency, 3),
        shared_from=shared.arm if reused and shared is not None else None,
        calls_saved=len(runner.reused) if reused else 0,
        shared_cost_usd=shared.cost_usd if reused and shared is not None else 0.0,
        quotes_checked=checked,
        quotes_found=found,
    )
    offered = None
    if arm.kind == "style" and arm.style in SHARING and not reused and first:
        seconds = runner.record.proposers_s[0] if runner.record.proposers_s else 0.0
        cost = sum(c.cost_usd for c in caller.calls if c.role == "proposer" and c.started_s <= seconds)
        offered = Proposals(arm.name, first, seconds, cost)
    return answer, offered


def _auto_writer(runner: TurnRunner, aggregator: str) -> str:
    """Whose words an auto answer is: the chosen answer's model when the pair agreed, else the
    escalated turn's aggregator (or the winner of a vote or debate)."""
    outcome = auto_outcome(runner.record)
    if outcome is not None and outcome.agreed and outcome.chosen:
        return outcome.chosen_provider
    return _style_writer(runner, aggregator)


def _style_writer(runner: TurnRunner, aggregator: str) -> str:
    """Whose words a multi-model answer is: a vote's or a debate's winner, else the aggregator
    (the council's chairman)."""
    if runner.context.style in (Style.VOTE, Style.DEBATE) and runner.tally:
        return runner.tally[0].author
    return aggregator


def _sample_names(provider: str, samples: int) -> tuple[str, ...]:
    return (provider, *(f"{provider}{SAMPLE_MARK}{n}" for n in range(2, samples + 1)))


def _runner(kit: ArmKit, arm: Arm, question: EvalQuestion, pdf: Path | None, shared: Proposals | None) -> TurnRunner:
    """The arm's scratch turn, assembled as a chat's turn of the same mode and style is
    (core/turn/assembly.py); only auto draws a claim map, the one it tells agreement by."""
    style = arm.style or Style.AGGREGATE
    mode: RunMode
    aliases: dict[str, str] = {}
    prompts: PromptLibrary | None = None
    aggregator: str | None = None
    reused: Mapping[str, str] = {}
    if arm.kind == "single":
        mode, participants = SingleModel(arm.provider), (arm.provider,)
    elif arm.kind == "self":
        mode, participants, aggregator = Mode.ALL, _sample_names(arm.provider, arm.samples), arm.provider
        aliases = {name: arm.provider for name in participants[1:]}
        prompts = SampledPrompts(kit.prompts.folder)
    else:
        mode, participants = (Mode.AUTO if arm.kind == "auto" else Mode.ALL), kit.participants
        if shared is not None and arm.style in SHARING:
            reused = shared.texts
    record = TurnRecord(
        session="eval", mode=mode.value, style=style.value, query=question.text, simulated=kit.simulated
    )
    return assemble(
        kit.parts(aliases, prompts),
        mode,
        style,
        question.text,
        record,
        participants=participants,
        pdf=pdf,
        history=answered_turns(question.history),
        aggregator=aggregator,
        reused=reused,
        map_claims=arm.kind == "auto",
    )


def _writer(runner: TurnRunner, arm: Arm) -> str:
    """Whose words the arm's answer is (the judges never judge their own model's)."""
    if arm.kind == "auto":
        return _auto_writer(runner, runner.context.aggregator)
    if arm.kind == "style":
        return _style_writer(runner, runner.context.aggregator)
    return arm.provider


def _contributors(caller: ModelCaller, first: Mapping[str, str], arm: Arm) -> tuple[str, ...]:
    """Every provider whose words shaped the answer: those called, and those whose reused proposals it read."""
    names = [call.provider.split(SAMPLE_MARK)[0] for call in caller.calls] + list(first)
    return tuple(dict.fromkeys(name.split(SAMPLE_MARK)[0] for name in names))


async def _quotes(reply: Reply, pdf: Path | None, cache: Path) -> tuple[int, int]:
    """How many quotes of the paper the answer has, and how many the checker found in it."""
    checks = await quote_checks.check_texts({"": reply.text}, pdf, cache)
    record = checks.get("")
    if not record or record.get("notice"):
        return 0, 0
    report = QuoteReport.from_record(record)
    return len(report.quotes), sum(1 for check in report.quotes if check.found)
