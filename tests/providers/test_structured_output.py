"""Structured output (the claim map's JSON) through each adapter's own API mechanism, with the
real SDKs against the simulator: the request carries the schema the API's way, and the reply's
text is the JSON object, parsed by the claim map's reader."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from ensemble_tui.core.claims.wire import SCHEMA_NAME, claim_map_schema, parse_wire_map
from ensemble_tui.simulator import ScriptedReply
from tests.providers.provider_support import ask

LETTERS = ("A", "B")
MAP = {
    "claims": [
        {
            "text": "Aggregation answered 87 of 120 correctly.",
            "kind": "contradiction",
            "stances": [
                {"letter": "A", "stance": "supports", "quote": "87 of 120", "paper_quote": "", "page": 1},
                {"letter": "B", "stance": "contradicts", "quote": "92 of 120", "paper_quote": "", "page": None},
            ],
            "citations": ["Table 1"],
        }
    ]
}


def structured(**options):
    return replace(ask("Map the claims.", **options), output_schema=claim_map_schema(LETTERS))


def read(text: str):
    parsed = parse_wire_map(text, LETTERS)
    assert parsed.claims[0].kind == "contradiction"
    assert [s.letter for s in parsed.claims[0].stances] == ["A", "B"]
    return parsed


async def test_openai_asks_through_text_format_json_schema(sim, make):
    sim.openai.push(ScriptedReply(json.dumps(MAP)))
    reply = await make("openai").complete(structured(web_search=False))
    fmt = sim.openai.calls[0].body["text"]["format"]
    assert fmt["type"] == "json_schema" and fmt["name"] == SCHEMA_NAME and fmt["strict"] is True
    assert fmt["schema"]["properties"]["claims"]["items"]["properties"]["stances"]["items"]["properties"]["letter"][
        "enum"
    ] == list(LETTERS)
    read(reply.text)


async def test_anthropic_asks_through_one_forced_tool_and_reads_its_input(sim, make):
    sim.anthropic.push(ScriptedReply(json.dumps(MAP)))
    reply = await make("anthropic").complete(structured(model="claude-sonnet-4-6", reasoning_effort="high"))
    body = sim.anthropic.calls[0].body
    (tool,) = body["tools"]  # no web search beside it: a forced tool is the whole reply
    assert tool["name"] == SCHEMA_NAME and tool["input_schema"]["required"] == ["claims"]
    assert body["tool_choice"] == {"type": "tool", "name": SCHEMA_NAME}
    assert "thinking" not in body  # the API refuses thinking with a forced tool
    read(reply.text)


async def test_gemini_asks_for_json_with_a_response_schema(sim, make):
    sim.gemini.push(ScriptedReply(json.dumps(MAP)))
    reply = await make("gemini").complete(structured(web_search=False))
    config = sim.gemini.calls[0].body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"]["required"] == ["claims"]
    read(reply.text)


async def test_chat_completions_asks_through_response_format(sim, make_chat):
    sim.chat("deepseek").push(ScriptedReply(json.dumps(MAP)))
    reply = await make_chat().complete(structured(web_search=False))
    body = sim.chat("deepseek").calls[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == SCHEMA_NAME
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["claims"]
    read(reply.text)


@pytest.mark.parametrize("name", ["openai", "anthropic", "gemini"])
async def test_a_plain_request_asks_for_no_json(sim, make, name):
    await make(name).complete(ask("A question?", web_search=False))
    body = getattr(sim, name).calls[0].body
    assert "tool_choice" not in body and "response_format" not in body
    assert "responseMimeType" not in (body.get("generationConfig") or {})
    assert (body.get("text") or {}).get("format", {}).get("type", "text") == "text"


async def test_a_badly_filled_forced_tool_is_unreadable(sim, make):
    sim.anthropic.push(ScriptedReply("I would rather write prose."))
    reply = await make("anthropic").complete(structured())
    with pytest.raises(ValueError, match="claims"):
        parse_wire_map(reply.text, LETTERS)


def test_a_map_naming_a_letter_that_does_not_exist_is_unreadable():
    bad = json.loads(json.dumps(MAP))
    bad["claims"][0]["stances"][0]["letter"] = "Q"
    with pytest.raises(ValueError, match="Q"):
        parse_wire_map(json.dumps(bad), LETTERS)
