"""The output-token limit that bounds a call's worst case: each adapter sends it with its SDK's
own parameter, the simulator stops a longer scripted reply there with the API's own signal, and
the adapter reports the reply as cut (real SDKs against the loopback simulator)."""

from __future__ import annotations

import dataclasses

import pytest

from ensemble_tui.simulator import ScriptedReply
from tests.providers.provider_support import ask

LONG = "word " * 40_000  # about 50,000 tokens by the simulator's count
LIMIT = 1_500


def limited(**options: object):
    return dataclasses.replace(ask(**options), max_output_tokens=LIMIT)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "sent"),
    [
        ("openai", lambda body: body["max_output_tokens"]),
        ("anthropic", lambda body: body["max_tokens"]),
        ("gemini", lambda body: body["generationConfig"]["maxOutputTokens"]),
    ],
)
async def test_each_api_gets_the_limit_and_a_longer_reply_is_cut_there(sim, make, name, sent):
    script = getattr(sim, name)
    script.push(ScriptedReply(LONG, usage=None))
    reply = await make(name).complete(limited())
    assert sent(script.calls[0].body) == LIMIT
    assert reply.truncated
    assert reply.usage.output_tokens == LIMIT
    assert 0 < len(reply.text) < len(LONG)


async def test_a_reply_scripted_at_20000_output_tokens_is_billed_at_the_limit(sim, make):
    sim.anthropic.push(ScriptedReply("A long answer. " * 200, usage={"output_tokens": 20_000}))
    reply = await make("anthropic").complete(limited())
    assert reply.truncated and reply.usage.output_tokens == LIMIT
    assert sim.anthropic.calls[0].body["max_tokens"] == LIMIT


async def test_chat_completions_sends_max_tokens_and_reads_length(sim, make_chat):
    sim.chat("deepseek").push(ScriptedReply(LONG))
    reply = await make_chat().complete(limited(model="deepseek-chat"))
    assert sim.chat("deepseek").calls[0].body["max_tokens"] == LIMIT
    assert reply.truncated and reply.usage.output_tokens == LIMIT


@pytest.mark.parametrize("name", ["openai", "anthropic", "gemini"])
async def test_a_reply_within_the_limit_is_not_marked_cut(sim, make, name):
    reply = await make(name).complete(limited())
    assert reply.text == "Simulated reply." and not reply.truncated


async def test_older_claude_thinking_fits_inside_a_small_limit(sim, make):
    await make("anthropic").complete(
        dataclasses.replace(ask(model="claude-sonnet-4-5", reasoning_effort="high"), max_output_tokens=4_000)
    )
    body = sim.anthropic.calls[0].body
    assert body["max_tokens"] == 4_000
    assert body["thinking"]["budget_tokens"] <= 2_000
