"""Property tests of the budget guard: whatever usage, retries and passes come, no call starts
whose worst case (its input estimate and its output-token limit) could pass the cap."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.provider import CallRequest, ErrorKind, ProviderError, Reply, Usage
from ensemble_tui.core.turn.costs import CHARS_PER_TOKEN, EXPECTED_OUTPUT_TOKENS, fixed_cost, usage_cost
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import ReplyCommitted, RunFailed
from ensemble_tui.core.workspace import Workspace
from tests.support import ScriptedProvider, role_of
from tests.support import no_sleep as no_wait

MODES = [Mode.CHATGPT, Mode.CLAUDE, Mode.CHATGPT_GEMINI, Mode.ALL]


@pytest.fixture(autouse=True)
def _quick_reservation_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call kept out by the turn's other calls in flight looks at the ledger again after 1 ms,
    not 0.25 s: the scripted calls settle at once, so the real interval only made the examples
    wait (93 s of wall for 5 s of CPU). What is checked (no call past the cap) is unchanged."""
    monkeypatch.setattr("ensemble_tui.core.turn.calls.RESERVATION_POLL_S", 0.001)


class Accountant:
    """Plays usage and faults from a drawn script and checks the guard at every call."""

    def __init__(self, workspace: Workspace, fractions: list[float], faults: list[bool], honest: bool) -> None:
        self.workspace = workspace
        self.fractions = fractions
        self.faults = faults
        self.honest = honest
        self.calls = 0
        self.violations: list[str] = []

    def reply(self, provider: str, request: CallRequest) -> Reply:
        workspace = self.workspace
        spec = workspace.configs[provider].spec_or_cautious(request.model)
        assert request.max_output_tokens is not None, "every call is sent with an output-token limit"
        estimate = fixed_cost(spec, request, 0) + usage_cost(spec, Usage(output_tokens=request.max_output_tokens))
        spent = workspace.session.cost_usd
        if spent + estimate > workspace.settings.budget_usd + 1e-12:
            self.violations.append(f"call {self.calls} started with ${spent:.4f} spent + ${estimate:.4f} estimated")
        index = self.calls
        self.calls += 1
        if self.faults[index % len(self.faults)]:
            raise ProviderError(ErrorKind.TRANSIENT, f"{provider}: server error (500)")
        fraction = self.fractions[index % len(self.fractions)]
        output_tokens = int(fraction * EXPECTED_OUTPUT_TOKENS)
        if self.honest:  # a provider stops at the limit it was sent
            output_tokens = min(output_tokens, request.max_output_tokens)
        else:
            fraction *= 3  # usage far above the estimate
            output_tokens *= 3
        chars = len(request.system) + sum(len(turn.text) for turn in request.messages)
        usage = Usage(
            input_tokens=int(fraction * (chars // CHARS_PER_TOKEN)),
            output_tokens=output_tokens,
            web_searches=1 if fraction >= 0.5 and request.web_search and spec.web_search else 0,
        )
        if role_of(request) == "aggregator":
            verdict = "REQUEST SYNTHESIS FROM PROPOSERS\nagain" if index % 3 else "FINAL REPLY:\ndone"
            return Reply(verdict, usage)
        return Reply(f"answer {index}", usage)


def run_scenario(home: Path, mode: Mode, cap: float, turns: int, accountant_args: tuple) -> Accountant:
    workspace = Workspace.open(home)
    workspace.update_settings(budget_usd=cap)
    accountant = Accountant(workspace, *accountant_args)
    providers = {}
    for label in ("ChatGPT", "Claude", "Gemini"):
        provider = ScriptedProvider(label)
        provider.scripts["any"] = [lambda request, label=label: accountant.reply(label, request)] * 10_000
        providers[label] = provider
    workspace.attach_providers(providers, {})  # type: ignore[arg-type]

    async def play() -> None:
        engine = Engine(workspace, rng=random.Random(1), sleep=no_wait)
        for number in range(turns):
            async for event in engine.run(mode, f"question {number}"):
                if isinstance(event, RunFailed) and event.message.startswith("Budget stop"):
                    return
                assert not isinstance(event, RunFailed) or "server error" in event.message or "Every" in event.message
                assert not isinstance(event, ReplyCommitted) or event.text

    asyncio.run(play())
    return accountant


scenario = st.tuples(
    st.sampled_from(MODES),
    st.floats(min_value=0.005, max_value=1.5),
    st.integers(min_value=1, max_value=6),
    st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=12),
    st.lists(st.booleans(), min_size=1, max_size=8),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scenario)
def test_no_call_starts_that_could_pass_the_cap(tmp_path_factory, drawn) -> None:
    mode, cap, turns, fractions, faults = drawn
    home = tmp_path_factory.mktemp("home")
    accountant = run_scenario(home, mode, cap, turns, (fractions, faults, False))
    assert accountant.violations == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scenario)
def test_with_honest_estimates_the_session_never_passes_the_cap(tmp_path_factory, drawn) -> None:
    mode, cap, turns, fractions, faults = drawn
    home = tmp_path_factory.mktemp("home")
    accountant = run_scenario(home, mode, cap, turns, (fractions, faults, True))
    spent = Workspace.open(home).session.cost_usd
    assert spent <= cap + 1e-9, f"${spent:.4f} spent against a ${cap:.4f} cap after {accountant.calls} calls"
