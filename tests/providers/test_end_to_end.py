"""Whole turns through the engine, the real SDKs and the simulator: retry counts per fault and
role, and the per-model temperature reaching (or not reaching) each API."""

from __future__ import annotations

import random

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import ProposerFailed, ReplyCommitted, Resubmitted, RunFailed
from ensemble_tui.core.turn.retry import RetryPolicy
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator import Fault, ScriptedReply

AGGREGATION = "# Proposed Reply 1:"


@pytest.fixture
async def engine(workspace, sim, sleeps):
    providers, unavailable = build_providers(workspace, env=sim.env)
    assert unavailable == {}
    workspace.attach_providers(providers, unavailable)
    workspace.update_settings(aggregator="Claude")
    yield Engine(workspace, retry=RetryPolicy(), rng=random.Random(3), sleep=sleeps, timeout_s=5)
    for adapter in providers.values():
        await adapter.aclose()


async def run(engine: Engine, mode: Mode, text: str) -> list[object]:
    return [event async for event in engine.run(mode, text)]


def proposer_calls(script) -> list:
    return [call for call in script.calls if AGGREGATION not in call.text]


def aggregator_calls(script) -> list:
    return [call for call in script.calls if AGGREGATION in call.text and "Your own proposal" not in call.text]


async def test_all_mode_with_a_resynthesis_round_and_the_pdf(engine, sim, workspace, sample_pdf):
    workspace.select_pdf(sample_pdf)
    workspace.settings.claim_map = False  # every call here reads the PDF; the mapper's reads none (tests/claims)
    sim.anthropic.push(
        ScriptedReply("REQUEST SYNTHESIS FROM PROPOSERS\nTighten it.", match=AGGREGATION, unless="Your own proposal"),
        ScriptedReply("FINAL REPLY:\nThe combined answer.", match=AGGREGATION, unless="Your own proposal"),
    )
    events = await run(engine, Mode.ALL, "What does the paper show?")
    final = [event for event in events if isinstance(event, ReplyCommitted)]
    assert [event.text for event in final] == ["The combined answer."]
    assert len([event for event in events if isinstance(event, Resubmitted)]) == 1
    for script in sim.scripts.values():
        assert len(script.uploads) == 1
        assert all(call.file_ids for call in script.calls)
    # temperature from Settings only where the configured model takes one
    assert all("temperature" not in call.body for call in sim.openai.calls)  # gpt-5
    assert all("temperature" not in call.body for call in sim.anthropic.calls)  # never with anthropic 2.x
    assert all(call.body["generationConfig"]["temperature"] == 0.7 for call in sim.gemini.calls)  # gemini-2.5-pro


async def test_a_failing_proposer_is_retried_five_times_then_skipped(engine, sim, sleeps):
    sim.openai.push(*(Fault("server_error", unless=AGGREGATION) for _ in range(6)))
    events = await run(engine, Mode.ALL, "Question?")
    assert len(proposer_calls(sim.openai)) == 6
    assert [event.provider for event in events if isinstance(event, ProposerFailed)] == ["ChatGPT"]
    assert any(isinstance(event, ReplyCommitted) for event in events)
    assert len(sleeps.delays) == 5


async def test_a_rate_limited_proposer_waits_the_retry_after(engine, sim, sleeps):
    sim.gemini.push(Fault("rate_limit", retry_after=4, unless=AGGREGATION))
    events = await run(engine, Mode.GEMINI, "Question?")
    assert any(isinstance(event, ReplyCommitted) for event in events)
    assert len(sim.gemini.calls) == 2
    assert sleeps.delays == [pytest.approx(4)]


async def test_the_aggregator_is_retried_once(engine, sim):
    sim.anthropic.push(*(Fault("server_error", match=AGGREGATION) for _ in range(3)))
    events = await run(engine, Mode.ALL, "Question?")
    assert len(aggregator_calls(sim.anthropic)) == 2
    failed = [event for event in events if isinstance(event, RunFailed)]
    assert failed and failed[0].message.startswith("Claude: server error (500)")


async def test_an_overloaded_aggregator_is_retried_three_times(engine, sim):
    sim.anthropic.push(*(Fault("overloaded", match=AGGREGATION) for _ in range(3)))
    events = await run(engine, Mode.ALL, "Question?")
    assert len(aggregator_calls(sim.anthropic)) == 4
    assert any(isinstance(event, ReplyCommitted) for event in events)


async def test_a_fatal_error_is_not_retried(engine, sim):
    sim.anthropic.push(Fault("unknown_model"))
    events = await run(engine, Mode.CLAUDE, "Question?")
    assert len(sim.anthropic.calls) == 1
    (failed,) = [event for event in events if isinstance(event, RunFailed)]
    assert failed.message == "Claude: model claude-sonnet-4-6 is not served (retired?) - pick another in Settings"
