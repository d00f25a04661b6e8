"""OpenAI-compatible providers (OpenRouter, DeepSeek, Ollama, ...): the Chat Completions request the
adapter sends and how it reads replies, with the real openai SDK against the simulator."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from ensemble_tui.core.provider import Provider, Usage
from ensemble_tui.providers import pdf_text
from ensemble_tui.simulator import Citation, ScriptedReply
from tests.providers.provider_support import ask as ask_chat


async def test_adapter_satisfies_the_protocol(make_chat):
    assert isinstance(make_chat(), Provider)


async def test_request_shape_with_history(sim, make_chat):
    reply = await make_chat().complete(
        ask_chat("First question?", "First answer.", "Second question?", system="Be brief.", model="deepseek-chat")
    )
    assert reply.text == "Simulated reply."
    (call,) = sim.chat("deepseek").calls
    assert call.path == "/v1/chat/completions"
    assert call.headers["authorization"] == "Bearer sk-sim-chat-key-1234"
    body = call.body
    assert body["model"] == "deepseek-chat"
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},  # the system prompt is a message of its own
        {"role": "user", "content": "First question?"},
        {"role": "assistant", "content": "First answer."},
        {"role": "user", "content": "Second question?"},
    ]
    assert not {"temperature", "reasoning_effort", "plugins", "tools", "stream", "web_search_options"} & set(body)


async def test_temperature_and_reasoning_effort_only_when_set(sim, make_chat):
    adapter = make_chat()
    await adapter.complete(ask_chat(temperature=0.4))
    await adapter.complete(ask_chat(reasoning_effort="high"))
    first, second = sim.chat("deepseek").calls
    assert first.body["temperature"] == 0.4 and "reasoning_effort" not in first.body
    assert second.body["reasoning_effort"] == "high" and "temperature" not in second.body


async def test_pdf_as_extracted_text_in_the_first_user_turn(sim, make_chat, sample_pdf):
    adapter = make_chat()
    assert adapter.pdf_note == (
        "DeepSeek: the PDF was sent as extracted text (this endpoint takes no files) - figures and layout are lost"
    )
    await adapter.complete(ask_chat("What is it about?", "A field note.", "Which styles?", pdf=sample_pdf))
    messages = sim.chat("deepseek").calls[0].body["messages"]
    first = messages[1]["content"]
    assert isinstance(first, str)  # one string: some compatible servers reject content arrays
    assert first.startswith('[The attached PDF "paper.pdf" (2 pages), as text extracted from it.')
    assert "--- Page 1 ---\nDeliberation Among Language Models" in first
    assert first.endswith("\n\n---\n\nWhat is it about?")
    assert messages[2:] == [
        {"role": "assistant", "content": "A field note."},
        {"role": "user", "content": "Which styles?"},
    ]
    assert sim.chat("deepseek").calls[0].inline_files == ()


async def test_text_is_extracted_once_per_file_content_for_every_adapter(sim, make_chat, sample_pdf, tmp_path):
    deepseek, mistral = make_chat("DeepSeek"), make_chat("Mistral")
    deepseek.prepare(sample_pdf)
    mistral.prepare(sample_pdf)
    await asyncio.gather(deepseek.complete(ask_chat(pdf=sample_pdf)), mistral.complete(ask_chat(pdf=sample_pdf)))
    copy = tmp_path / "copy.pdf"
    copy.write_bytes(sample_pdf.read_bytes())
    await deepseek.complete(ask_chat("Again?", pdf=copy))
    assert pdf_text.TEXTS.extractions == 1
    sent = [call.body["messages"][1]["content"] for call in (*sim.chat("deepseek").calls, *sim.chat("mistral").calls)]
    assert len(sent) == 3 and all("Deliberation Among Language Models" in text for text in sent)


async def test_a_pdf_without_text_is_a_fatal_error_naming_it(sim, make_chat, pdf):
    from ensemble_tui.core.provider import ErrorKind, ProviderError

    with pytest.raises(ProviderError) as caught:
        await make_chat().complete(ask_chat(pdf=pdf))  # the fixture's bytes are no real PDF
    assert caught.value.kind is ErrorKind.FATAL
    assert caught.value.message == (
        "DeepSeek: paper.pdf could not be read as a PDF - this endpoint takes no files, only the PDF's text"
    )
    assert sim.chat("deepseek").calls == []


async def test_pdf_as_an_openrouter_file_part(sim, make_chat, pdf):
    adapter = make_chat("OpenRouter", pdf="file-part", key_var="OPENROUTER_API_KEY")
    assert adapter.pdf_note is None
    adapter.prepare(pdf)
    await adapter.complete(ask_chat("Q1?", "A1.", "Q2?", pdf=pdf))
    await adapter.complete(ask_chat("Q1?", "A1.", "Q2?", "A2.", "Q3?", pdf=pdf))
    first_call, second_call = sim.chat("openrouter").calls
    file_part, text_part = first_call.body["messages"][1]["content"]
    assert file_part["type"] == "file"
    assert file_part["file"]["filename"] == "paper.pdf"
    assert file_part["file"]["file_data"].startswith("data:application/pdf;base64,")
    assert text_part == {"type": "text", "text": "Q1?"}
    assert first_call.body["messages"][3] == {"role": "user", "content": "Q2?"}
    (inline,) = first_call.inline_files
    assert (inline.filename, inline.mime_type, inline.size) == ("paper.pdf", "application/pdf", pdf.stat().st_size)
    assert inline.sha256 == hashlib.sha256(pdf.read_bytes()).hexdigest()  # the bytes arrive intact
    assert second_call.body["messages"][1] == first_call.body["messages"][1]  # same prefix every turn


async def test_openrouter_web_plugin_and_its_citations(sim, make_chat):
    adapter = make_chat("OpenRouter", pdf="file-part", web_search="openrouter-plugin", key_var="OPENROUTER_API_KEY")
    urls = (Citation("https://example.org/b", "B"), "https://example.org/a", "https://example.org/b")
    sim.chat("openrouter").push(ScriptedReply("Some context. The cited claim.", citations=urls))
    reply = await adapter.complete(ask_chat())
    body = sim.chat("openrouter").calls[0].body
    assert body["plugins"] == [{"id": "web"}]
    assert reply.text == "Some context. The cited claim."
    assert reply.sources == ("https://example.org/b", "https://example.org/a")
    assert reply.usage.web_searches == 1  # OpenRouter bills the plugin per request


async def test_no_plugin_without_web_search(sim, make_chat):
    adapter = make_chat("OpenRouter", web_search="openrouter-plugin")
    reply = await adapter.complete(ask_chat(web_search=False))
    assert "plugins" not in sim.chat("openrouter").calls[0].body
    assert reply.sources == () and reply.usage.web_searches == 0


@pytest.mark.parametrize("mode", ["none", "native"])
async def test_other_search_modes_send_nothing(sim, make_chat, mode):
    await make_chat(web_search=mode).complete(ask_chat())
    body = sim.chat("deepseek").calls[0].body
    assert not {"plugins", "tools", "web_search_options"} & set(body)


async def test_usage_takes_cached_and_written_tokens_out_of_input(sim, make_chat):
    sim.chat("deepseek").push(
        ScriptedReply(
            "Answer.",
            usage={
                "prompt_tokens": 10_000,
                "prompt_tokens_details": {"cached_tokens": 6_000, "cache_write_tokens": 1_000},
                "completion_tokens": 900,
                "completion_tokens_details": {"reasoning_tokens": 500},  # already inside completion_tokens
                "total_tokens": 10_900,
            },
        )
    )
    reply = await make_chat().complete(ask_chat())
    assert reply.usage == Usage(
        input_tokens=3_000, cached_input_tokens=6_000, cache_write_tokens=1_000, output_tokens=900
    )


async def test_deepseek_cache_hits_are_read_when_no_details_come(sim, make_chat):
    sim.chat("deepseek").push(
        ScriptedReply(
            "Answer.",
            usage={
                "prompt_tokens": 5_000,
                "prompt_tokens_details": None,
                "prompt_cache_hit_tokens": 4_000,
                "prompt_cache_miss_tokens": 1_000,
                "completion_tokens": 300,
            },
        )
    )
    reply = await make_chat().complete(ask_chat())
    assert reply.usage == Usage(input_tokens=1_000, cached_input_tokens=4_000, output_tokens=300)


async def test_the_key_travels_only_in_the_auth_header_and_no_openai_account_headers(sim, make_chat, monkeypatch):
    monkeypatch.setenv("OPENAI_ORG_ID", "org-private")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj_private")
    adapter = make_chat()
    await adapter.complete(ask_chat("Q1?", "A1", "Q2?"))
    (request,) = sim.chat("deepseek").requests
    assert "openai-organization" not in request.headers and "openai-project" not in request.headers
    key = adapter.credentials.key
    assert key not in request.path and key not in request.text
    assert all(key not in value for header, value in request.headers.items() if header != "authorization")
    assert key not in repr(adapter)


async def test_a_keyless_local_server_gets_a_placeholder_key(sim, make_chat):
    adapter = make_chat("Ollama", key_var=None, local=True)
    await adapter.complete(ask_chat(model="llama3.1:8b"))
    assert sim.chat("ollama").calls[0].headers["authorization"] == "Bearer ensemble-tui-no-key"
