"""Claude adapter: Files beta, document blocks, prompt caching, pause_turn (real anthropic SDK)."""

from __future__ import annotations

import pytest

from ensemble_tui.core.config import load_provider_config
from ensemble_tui.core.provider import Usage
from ensemble_tui.core.store.home import defaults_root
from ensemble_tui.core.turn.costs import usage_cost
from ensemble_tui.providers.anthropic_adapter import MAX_CONTINUATIONS
from ensemble_tui.simulator import ScriptedReply
from tests.providers.provider_support import ask

EPHEMERAL = {"type": "ephemeral"}


def cache_breakpoints(body: dict) -> int:
    return sum("cache_control" in block for message in body["messages"] for block in message["content"])


async def test_upload_uses_the_files_beta(sim, make, pdf):
    await make("anthropic").complete(ask(pdf=pdf))
    (upload,) = sim.anthropic.uploads
    assert upload.path == "/v1/files"
    assert upload.headers["anthropic-beta"] == "files-api-2025-04-14"
    assert upload.multipart["files"]["file"]["content_type"] == "application/pdf"


async def test_request_shape_with_history(sim, make, pdf):
    await make("anthropic").complete(
        ask("First question?", "First answer.", "Second question?", pdf=pdf, system="Be brief.", model="claude-x")
    )
    (call,) = sim.anthropic.calls
    assert call.path == "/v1/messages"
    assert call.headers["anthropic-beta"] == "files-api-2025-04-14"
    assert call.headers["authorization"].startswith("Bearer ")
    body = call.body
    assert body["model"] == "claude-x"
    assert body["system"] == "Be brief."
    assert [message["role"] for message in body["messages"]] == ["user", "assistant", "user"]
    file_id = next(iter(sim.anthropic.files))
    first = body["messages"][0]["content"]
    assert first[0] == {"type": "document", "source": {"type": "file", "file_id": file_id}, "cache_control": EPHEMERAL}
    assert first[1] == {"type": "text", "text": "First question?"}
    # the end of the history is the second breakpoint; the new question is not cached
    assert body["messages"][1]["content"] == [{"type": "text", "text": "First answer.", "cache_control": EPHEMERAL}]
    assert body["messages"][2]["content"] == [{"type": "text", "text": "Second question?"}]
    assert cache_breakpoints(body) == 2
    assert body["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]
    assert body["max_tokens"] > 0


async def test_single_turn_caches_only_the_document(sim, make, pdf):
    await make("anthropic").complete(ask("Only question?", pdf=pdf))
    body = sim.anthropic.calls[0].body
    assert cache_breakpoints(body) == 1
    assert "cache_control" in body["messages"][0]["content"][0]


@pytest.mark.parametrize("temperature", [None, 0.7])
async def test_temperature_is_never_sent(sim, make, temperature):
    await make("anthropic").complete(ask(temperature=temperature))
    body = sim.anthropic.calls[0].body
    assert not {"temperature", "top_p", "top_k"} & set(body)


async def test_usage_adds_cache_reads_and_writes_and_searches(sim, make):
    sim.anthropic.push(
        ScriptedReply(
            "Answer.",
            usage={
                "input_tokens": 50,
                "cache_creation_input_tokens": 2_000,
                "cache_read_input_tokens": 8_000,
                "output_tokens": 700,
                "server_tool_use": {"web_search_requests": 2, "web_fetch_requests": 0},
            },
        )
    )
    reply = await make("anthropic").complete(ask())
    assert reply.usage == Usage(
        input_tokens=50, cached_input_tokens=8_000, cache_write_tokens=2_000, output_tokens=700, web_searches=2
    )
    spec = load_provider_config(defaults_root() / "Configurations" / "Claude.json").model("claude-sonnet-4-6")
    expected = (50 * 3 + 8_000 * 0.3 + 2_000 * 3.75 + 700 * 15) / 1e6 + 2 * 0.01
    assert usage_cost(spec, reply.usage) == pytest.approx(expected)


async def test_only_text_blocks_make_the_reply(sim, make):
    sim.anthropic.push(ScriptedReply("Context first. The cited sentence.", citations=("https://example.org/c",)))
    reply = await make("anthropic").complete(ask())
    assert reply.text == "Context first. The cited sentence."
    assert reply.sources == ("https://example.org/c",)


async def test_pause_turn_is_continued_and_the_parts_joined(sim, make):
    sim.anthropic.push(
        ScriptedReply("Searching first. ", citations=("https://example.org/1",), stop_reason="pause_turn"),
        ScriptedReply("Then the answer.", citations=("https://example.org/2",)),
    )
    reply = await make("anthropic").complete(ask("Question?"))
    # the continuation searched again before writing on: a paragraph break, not "first.Then"
    assert reply.text == "Searching first.\n\nThen the answer."
    assert reply.sources == ("https://example.org/1", "https://example.org/2")
    first, second = sim.anthropic.calls
    assert len(second.body["messages"]) == len(first.body["messages"]) + 1
    paused = second.body["messages"][-1]
    assert paused["role"] == "assistant"
    assert [block["type"] for block in paused["content"]] == ["server_tool_use", "web_search_tool_result", "text"]
    assert reply.usage.web_searches == 2


async def test_pause_turn_resends_are_bounded(sim, make):
    sim.anthropic.push(*(ScriptedReply(f"part {n}. ", stop_reason="pause_turn") for n in range(10)))
    reply = await make("anthropic").complete(ask())
    assert len(sim.anthropic.calls) == MAX_CONTINUATIONS + 1
    assert reply.text.startswith("part 0.\n\npart 1.\n\n")


@pytest.mark.filterwarnings("ignore:The model 'claude-sonnet-4-0' is deprecated:DeprecationWarning")
async def test_retired_model_message(sim, make):
    sim.anthropic.unknown_models.add("claude-sonnet-4-0")
    with pytest.raises(Exception) as caught:
        await make("anthropic").complete(ask(model="claude-sonnet-4-0"))
    assert str(caught.value) == "Claude: model claude-sonnet-4-0 is not served (retired?) - pick another in Settings"
