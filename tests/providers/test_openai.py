"""ChatGPT adapter: the Responses API request it sends and how it reads replies (real openai SDK)."""

from __future__ import annotations

import pytest

from ensemble_tui.core.config import load_provider_config
from ensemble_tui.core.provider import Usage
from ensemble_tui.core.store.home import defaults_root
from ensemble_tui.core.turn.costs import usage_cost
from ensemble_tui.simulator import Citation, ScriptedReply
from tests.providers.provider_support import ask


async def test_upload_is_a_user_data_file_sent_as_multipart(sim, make, pdf):
    await make("openai").complete(ask(pdf=pdf))
    (upload,) = sim.openai.uploads
    assert upload.method == "POST" and upload.path == "/v1/files"
    # an expiry, so an upload the clean-up never reaches still goes: the retention period (7 days)
    assert upload.multipart["fields"] == {
        "purpose": "user_data",
        "expires_after[anchor]": "created_at",
        "expires_after[seconds]": "604800",
    }
    part = upload.multipart["files"]["file"]
    assert part["filename"] == "paper.pdf"
    assert part["content_type"] == "application/pdf"


async def test_request_shape(sim, make, pdf):
    await make("openai").complete(
        ask("First question?", "First answer.", "Second question?", pdf=pdf, system="Be brief.", model="gpt-5")
    )
    (call,) = sim.openai.calls
    assert call.path == "/v1/responses"
    body = call.body
    assert body["model"] == "gpt-5"
    assert body["instructions"] == "Be brief."  # the system prompt goes in its own field...
    assert [item["role"] for item in body["input"]] == ["user", "assistant", "user"]  # ...not in the turns
    file_id = next(iter(sim.openai.files))
    assert body["input"][0]["content"] == [
        {"type": "input_file", "file_id": file_id},
        {"type": "input_text", "text": "First question?"},
    ]
    assert body["input"][1]["content"] == "First answer."
    assert body["input"][2]["content"] == "Second question?"
    assert body["tools"] == [{"type": "web_search"}]
    assert "temperature" not in body
    assert "stream" not in body


@pytest.mark.parametrize("temperature", [0.0, 0.7])
async def test_temperature_is_sent_when_the_model_takes_one(sim, make, temperature):
    await make("openai").complete(ask(model="gpt-4.1", temperature=temperature))
    assert sim.openai.calls[0].body["temperature"] == temperature


async def test_usage_takes_cached_and_written_tokens_out_of_input(sim, make):
    sim.openai.push(
        ScriptedReply(
            "Answer.",
            citations=("https://example.org/1",),
            usage={
                "input_tokens": 10_000,
                "input_tokens_details": {"cached_tokens": 6_000, "cache_write_tokens": 1_000},
                "output_tokens": 900,
                "output_tokens_details": {"reasoning_tokens": 500},
                "total_tokens": 10_900,
            },
        )
    )
    reply = await make("openai").complete(ask())
    assert reply.usage == Usage(
        input_tokens=3_000, cached_input_tokens=6_000, cache_write_tokens=1_000, output_tokens=900, web_searches=1
    )
    spec = load_provider_config(defaults_root() / "Configurations" / "OpenAI.json").model("gpt-5")
    # 3,000 x 1.25 + 6,000 x 0.125 + 1,000 x 1.25 x 1.25 (no write price: input x 1.25) + 900 x 10, per 1M; + $0.01
    expected = (3_000 * 1.25 + 6_000 * 0.125 + 1_000 * 1.5625 + 900 * 10) / 1e6 + 0.01
    assert usage_cost(spec, reply.usage) == pytest.approx(expected)


async def test_reply_text_and_url_citations(sim, make):
    sim.openai.push(
        ScriptedReply(
            "The paper proposes X. It was replicated in 2025.",
            citations=(Citation("https://example.org/replication", "Replication"), "https://example.org/x"),
        )
    )
    reply = await make("openai").complete(ask())
    assert reply.text == "The paper proposes X. It was replicated in 2025."
    assert reply.sources == ("https://example.org/replication", "https://example.org/x")
