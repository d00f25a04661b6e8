"""Adapters read real provider replies as the user would want: bodies recorded from the live APIs
(and two built from the documented shape, see recorded/README.md), replayed through the real SDKs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ensemble_tui.core.config import ModelSpec, load_provider_config
from ensemble_tui.core.provider import Usage
from ensemble_tui.core.store.home import defaults_root
from ensemble_tui.core.turn.costs import usage_cost
from ensemble_tui.simulator import RecordedBody, ScriptedReply
from tests.providers.provider_support import ask

RECORDED = Path(__file__).parent / "recorded"
CONFIGS = defaults_root() / "Configurations"


def recorded(name: str) -> RecordedBody:
    return RecordedBody.from_file(RECORDED / name)


def spec(provider_file: str, model: str) -> ModelSpec:
    found = load_provider_config(CONFIGS / provider_file).model(model)
    assert found is not None
    return found


# ----- Claude: the answer reads as the model wrote it ------------------------------------------

WEATHER_ANSWER = (
    "Based on the search results, here's the weather information for San Francisco today "
    "(September 16, 2025):\n\n"
    "**Current Conditions:**\n"
    "- Temperature: 66°F with clear skies\n"
    "- Wind: W at 3 mph with gusts up to 5 mph\n"
    "- Air quality is poor and unhealthy for sensitive groups\n\n"
    "**Today's Forecast:**\n"
    "- High: 78°F with partly cloudy skies\n"
    "- Winds W at 10 to 20 mph\n"
    "- 8% chance of precipitation\n"
    "- Some clouds in the morning will give way to mainly sunny skies for the afternoon\n\n"
    "**Tonight:**\n"
    "- Low: 57°F with clear to partly cloudy conditions\n"
    "- Winds W at 10 to 20 mph\n\n"
    "Overall, it's a pleasant day in San Francisco with mild temperatures and mostly sunny conditions, "
    "though the air quality is poor, so sensitive individuals should limit outdoor activities."
)


async def test_claude_recorded_reply_keeps_cited_fragments_joined_as_written(sim, make):
    """18 text blocks, split wherever a citation starts or ends, make one unbroken answer."""
    sim.anthropic.push(recorded("anthropic_web_search_weather.json"))
    reply = await make("anthropic").complete(ask("What is the weather in San Francisco today?"))
    assert reply.text == WEATHER_ANSWER
    assert reply.sources == (
        "https://www.accuweather.com/en/us/san-francisco/94103/weather-forecast/347629",
        "https://www.wunderground.com/weather/us/ca/san-francisco",
        "https://www.wunderground.com/hourly/us/ca/san-francisco",
    )
    assert reply.usage == Usage(input_tokens=8_984, output_tokens=520, web_searches=1)
    sonnet = spec("Claude.json", "claude-sonnet-4-0")
    assert usage_cost(sonnet, reply.usage) == pytest.approx((8_984 * 3 + 520 * 15) / 1e6 + 0.01)


async def test_claude_text_before_and_after_a_search_is_two_paragraphs(sim, make):
    sim.anthropic.push(recorded("anthropic_documented_search_between_texts.json"))
    reply = await make("anthropic").complete(ask("When was Claude Shannon born?"))
    assert reply.text == (
        "I'll search for when Claude Shannon was born.\n\n"
        "Based on the search results, Claude Shannon was born on April 30, 1916, in Petoskey, Michigan"
    )
    assert reply.sources == ("https://en.wikipedia.org/wiki/Claude_Shannon",)


async def test_simulated_claude_search_between_texts_reads_as_two_paragraphs(sim, make):
    sim.anthropic.push(
        ScriptedReply(
            "The lemma holds. Its proof is in section 3.",
            citations=("https://example.org/lemma",),
            before_search="Let me check the lemma.",
            searches=("lemma proof", "lemma section 3"),
        )
    )
    reply = await make("anthropic").complete(ask())
    assert reply.text == "Let me check the lemma.\n\nThe lemma holds. Its proof is in section 3."
    assert reply.usage.web_searches == 2


# ----- Gemini: searches counted as each model bills them ---------------------------------------


async def test_gemini_recorded_grounded_reply_counts_its_two_queries(sim, make):
    sim.gemini.push(recorded("gemini_2_5_flash_grounded_two_queries.json"))
    reply = await make("gemini").complete(ask("Use Google Search to find Pydantic AI's documentation."))
    assert reply.text.startswith("The official documentation for Pydantic AI can be found on the Pydantic website.")
    assert len(reply.sources) == 5
    # tool-use prompt tokens (the search results) are input; thoughts are output
    assert reply.usage == Usage(input_tokens=17 + 87, output_tokens=115 + 199, web_searches=2)


async def test_gemini_2_5_bills_one_grounded_prompt_and_gemini_3_each_query(sim, make):
    """The same real reply costs one grounding fee on 2.5 and two query fees on 3.x."""
    sim.gemini.push(recorded("gemini_2_5_flash_grounded_two_queries.json"))
    usage = (await make("gemini").complete(ask())).usage
    tokens_25 = (104 * 1.25 + 314 * 10) / 1e6
    tokens_31 = (104 * 2.0 + 314 * 12) / 1e6
    assert usage_cost(spec("Gemini.json", "gemini-2.5-pro"), usage) == pytest.approx(tokens_25 + 0.035)
    assert usage_cost(spec("Gemini.json", "gemini-3.1-pro-preview"), usage) == pytest.approx(tokens_31 + 2 * 0.014)


async def test_gemini_3_reply_with_three_queries_bills_three(sim, make):
    sim.gemini.push(recorded("gemini_3_documented_three_queries.json"))
    reply = await make("gemini").complete(ask("Who won Euro 2024?", model="gemini-3.1-pro-preview"))
    assert reply.text.startswith("Spain won Euro 2024")
    assert reply.usage.web_searches == 3
    gemini_3 = spec("Gemini.json", "gemini-3.1-pro-preview")
    expected = ((9 + 310) * 2.0 + (28 + 240) * 12) / 1e6 + 3 * 0.014
    assert usage_cost(gemini_3, reply.usage) == pytest.approx(expected)


async def test_gemini_reply_without_grounding_bills_no_search(sim, make):
    sim.gemini.push(ScriptedReply("Known already."))
    reply = await make("gemini").complete(ask(web_search=False))
    assert reply.usage.web_searches == 0


async def test_simulated_gemini_grounding_lists_every_query(sim, make):
    sim.gemini.push(ScriptedReply("Grounded.", citations=("https://example.org/g",), searches=("a", "b", "c")))
    reply = await make("gemini").complete(ask())
    assert reply.usage.web_searches == 3
    assert sim.gemini.calls[-1].body["tools"] == [{"googleSearch": {}}]


# ----- OpenRouter: what the call really cost ----------------------------------------------------


def openrouter(make_chat):
    return make_chat("OpenRouter", pdf="file-part", web_search="openrouter-plugin", key_var="OPENROUTER_API_KEY")


async def test_openrouter_recorded_cost_replaces_the_estimate(sim, make_chat):
    sim.chat("openrouter").push(recorded("openrouter_web_search_usage_cost.json"))
    reply = await openrouter(make_chat).complete(ask("Find Pydantic AI's GitHub repository.", model="x"))
    assert reply.text.strip() == "https://github.com/pydantic/pydantic-ai"
    assert reply.usage.input_tokens == 8_174 and reply.usage.output_tokens == 30
    assert reply.usage.cost_exact and reply.usage.cost_usd == pytest.approx(0.0133176)
    # an unpriced model would be estimated at the cautious prices (about $0.15): the bill wins
    unpriced = load_provider_config(CONFIGS / "OpenRouter.json").spec_or_cautious("openai/gpt-4.1-mini")
    assert usage_cost(unpriced, reply.usage) == pytest.approx(0.0133176)


async def test_openrouter_byok_cost_adds_the_upstream_bill(sim, make_chat):
    byok = {"cost": 0.0004, "is_byok": True, "cost_details": {"upstream_inference_cost": 0.0125}}
    sim.chat("openrouter").push(ScriptedReply("Answer.", usage=byok))
    reply = await openrouter(make_chat).complete(ask(model="x"))
    assert reply.usage.cost_usd == pytest.approx(0.0129)


async def test_a_server_that_reports_no_cost_is_estimated(sim, make_chat):
    sim.chat("openrouter").push(ScriptedReply("Answer."))
    reply = await openrouter(make_chat).complete(ask(model="x"))
    assert not reply.usage.cost_exact
    gpt5 = spec("OpenRouter.json", "openai/gpt-5")
    usage = reply.usage
    expected = (usage.input_tokens * 1.25 + usage.output_tokens * 10) / 1e6 + 0.02
    assert usage_cost(gpt5, usage) == pytest.approx(expected)
