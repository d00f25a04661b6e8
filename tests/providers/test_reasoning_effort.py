"""Reasoning effort in the three built-in adapters: each API's own parameter, and nothing at all
when no effort is asked for (real SDKs against the simulator)."""

from __future__ import annotations

import pytest

from ensemble_tui.providers.anthropic_adapter import MAX_OUTPUT_TOKENS, claude_version
from ensemble_tui.simulator import ScriptedReply
from tests.providers.provider_support import ask

EFFORTS = ("low", "medium", "high")


@pytest.mark.parametrize("effort", EFFORTS)
async def test_openai_sends_reasoning_effort(sim, make, effort):
    await make("openai").complete(ask(model="gpt-5", reasoning_effort=effort))
    assert sim.openai.calls[0].body["reasoning"] == {"effort": effort}


async def test_openai_drops_temperature_when_reasoning(sim, make):
    # gpt-5.1 takes a temperature only with reasoning off: both together are a 400
    await make("openai").complete(ask(model="gpt-5.1", temperature=0.7, reasoning_effort="low"))
    body = sim.openai.calls[0].body
    assert body["reasoning"] == {"effort": "low"}
    assert "temperature" not in body


async def test_openai_sends_no_reasoning_by_default(sim, make):
    await make("openai").complete(ask(model="gpt-4.1", temperature=0.5))
    body = sim.openai.calls[0].body
    assert "reasoning" not in body
    assert body["temperature"] == 0.5


@pytest.mark.parametrize(("effort", "budget"), [("low", 2_048), ("medium", 8_192), ("high", 24_576)])
async def test_claude_4_6_and_later_get_adaptive_thinking_with_an_effort(sim, make, effort, budget):
    sim.anthropic.push(ScriptedReply("The answer."))
    reply = await make("anthropic").complete(ask(model="claude-sonnet-4-6", reasoning_effort=effort))
    body = sim.anthropic.calls[0].body
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": effort}
    assert body["max_tokens"] == MAX_OUTPUT_TOKENS + budget  # thinking counts towards max_tokens
    assert reply.text == "The answer."  # the thinking block is not part of the reply


@pytest.mark.parametrize("model", ["claude-sonnet-5", "claude-sonnet-5-5", "claude-opus-4-6"])
async def test_newer_claude_models_never_get_a_manual_budget(sim, make, model):
    await make("anthropic").complete(ask(model=model, reasoning_effort="high"))
    body = sim.anthropic.calls[0].body
    assert body["thinking"] == {"type": "adaptive"}  # Claude 5 answers 400 to type "enabled"
    assert "budget_tokens" not in body["thinking"]


@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-3-7-sonnet-20250219"])
async def test_older_claude_models_get_a_thinking_budget_below_max_tokens(sim, make, model):
    await make("anthropic").complete(ask(model=model, reasoning_effort="low"))
    body = sim.anthropic.calls[0].body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2_048}
    assert "output_config" not in body
    assert body["max_tokens"] > body["thinking"]["budget_tokens"] + 10_000  # room left for the answer


async def test_claude_without_an_effort_sends_no_thinking(sim, make):
    await make("anthropic").complete(ask(model="claude-sonnet-4-6"))
    body = sim.anthropic.calls[0].body
    assert not {"thinking", "output_config"} & set(body)
    assert body["max_tokens"] == MAX_OUTPUT_TOKENS


def test_claude_versions_are_read_from_model_ids():
    assert claude_version("claude-sonnet-4-6") == (4, 6)
    assert claude_version("claude-3-7-sonnet-20250219") == (3, 7)  # the date is not a version
    assert claude_version("claude-sonnet-5") == (5, 0)
    assert claude_version("anthropic.claude-sonnet-4-5-v1:0") == (4, 5)
    assert claude_version("claude-latest") is None


@pytest.mark.parametrize(("effort", "budget"), [("low", 2_048), ("medium", 8_192), ("high", 24_576)])
async def test_gemini_sends_a_thinking_budget(sim, make, effort, budget):
    await make("gemini").complete(ask(model="gemini-2.5-pro", reasoning_effort=effort, temperature=0.3))
    config = sim.gemini.calls[0].body["generationConfig"]
    thinking = config["thinkingConfig"]
    # google-genai sends snake_case inside some messages; the API accepts both spellings
    assert thinking in ({"thinkingBudget": budget}, {"thinking_budget": budget})  # no level: both are a 400
    assert config["temperature"] == pytest.approx(0.3)  # Gemini takes both


async def test_gemini_without_an_effort_sends_no_thinking_config(sim, make):
    await make("gemini").complete(ask(model="gemini-2.5-pro"))
    assert "thinkingConfig" not in sim.gemini.calls[0].body.get("generationConfig", {})
