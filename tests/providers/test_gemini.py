"""Gemini adapter: resumable upload, ACTIVE polling, grounding, usage (real google-genai SDK)."""

from __future__ import annotations

import pytest

from ensemble_tui.core.config import load_provider_config
from ensemble_tui.core.provider import ErrorKind, ProviderError, Usage
from ensemble_tui.core.store.home import defaults_root
from ensemble_tui.core.turn.costs import usage_cost
from ensemble_tui.providers.gemini_adapter import PDF_MIME, _ms
from ensemble_tui.simulator import ScriptedReply
from tests.providers.provider_support import ask


async def test_resumable_upload_then_polling_until_active(sim, make, pdf):
    sim.gemini.processing_polls = 2
    await make("gemini").complete(ask(pdf=pdf))
    endpoints = [request.endpoint for request in sim.gemini.requests]
    assert endpoints == ["upload", "upload_chunk", "file_get", "file_get", "file_get", "generate"]
    start, chunk = sim.gemini.requests[:2]
    assert start.headers["x-goog-upload-protocol"] == "resumable"
    assert start.headers["x-goog-upload-command"] == "start"
    assert start.headers["x-goog-upload-header-content-type"] == "application/pdf"
    assert start.headers["x-goog-upload-header-content-length"] == str(pdf.stat().st_size)
    assert chunk.headers["x-goog-upload-command"] == "upload, finalize"
    assert chunk.raw_size == pdf.stat().st_size
    assert "x-goog-api-key" not in chunk.headers  # the upload URL is the credential


async def test_a_failed_file_is_a_fatal_error(sim, make, pdf, monkeypatch):
    from ensemble_tui.simulator import gemini_api

    original = gemini_api.file_get

    def failed(request, script, base_url):
        reply = original(request, script, base_url)
        reply.body = reply.body.replace(b'"PROCESSING"', b'"FAILED"').replace(b'"ACTIVE"', b'"FAILED"')
        return reply

    monkeypatch.setattr(gemini_api, "file_get", failed)
    sim.gemini.processing_polls = 1
    with pytest.raises(ProviderError) as caught:
        await make("gemini").complete(ask(pdf=pdf))
    assert caught.value.kind is ErrorKind.FATAL
    assert caught.value.message == "Gemini: could not process the PDF - check that it opens"


async def test_request_shape(sim, make, pdf):
    await make("gemini").complete(
        ask("First question?", "First answer.", "Second question?", pdf=pdf, system="Be brief.", model="gemini-x")
    )
    (call,) = sim.gemini.calls
    assert call.path == "/v1/models/gemini-x:generateContent"
    body = call.body
    assert body["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert [content["role"] for content in body["contents"]] == ["user", "model", "user"]
    file_part, text_part = body["contents"][0]["parts"]
    file_data = file_part.get("fileData") or file_part.get("file_data")
    uri = file_data.get("fileUri") or file_data.get("file_uri")
    assert uri.endswith("/files/" + next(iter(sim.gemini.files)))
    assert text_part == {"text": "First question?"}
    assert body["contents"][2]["parts"] == [{"text": "Second question?"}]
    assert body["tools"] == [{"googleSearch": {}}]
    assert "temperature" not in body.get("generationConfig", {})


async def test_temperature_when_given(sim, make):
    await make("gemini").complete(ask(temperature=0.3))
    assert sim.gemini.calls[0].body["generationConfig"]["temperature"] == pytest.approx(0.3)


async def test_usage_separates_cached_tool_and_thought_tokens(sim, make):
    sim.gemini.push(
        ScriptedReply(
            "Answer.",
            citations=("https://example.org/g",),
            usage={
                "promptTokenCount": 12_000,
                "cachedContentTokenCount": 8_000,
                "toolUsePromptTokenCount": 300,
                "candidatesTokenCount": 600,
                "thoughtsTokenCount": 1_400,
                "totalTokenCount": 14_300,
            },
        )
    )
    reply = await make("gemini").complete(ask())
    assert reply.usage == Usage(input_tokens=4_300, cached_input_tokens=8_000, output_tokens=2_000, web_searches=1)
    spec = load_provider_config(defaults_root() / "Configurations" / "Gemini.json").model("gemini-2.5-pro")
    expected = (4_300 * 1.25 + 8_000 * 0.31 + 2_000 * 10) / 1e6 + 0.035
    assert usage_cost(spec, reply.usage) == pytest.approx(expected)


async def test_grounding_chunks_are_the_sources(sim, make):
    sim.gemini.push(ScriptedReply("Grounded.", citations=("https://example.org/1", "https://example.org/2")))
    reply = await make("gemini").complete(ask())
    assert reply.text == "Grounded."
    assert reply.sources == ("https://example.org/1", "https://example.org/2")


async def test_transport_is_pinned_even_when_aiohttp_looks_importable(sim, make, monkeypatch):
    from google.genai import _api_client

    monkeypatch.setattr(_api_client, "has_aiohttp", True)  # as when textual-dev pulls aiohttp in
    adapter = make("gemini")
    reply = await adapter.complete(ask())  # aiohttp is not installed: using it would fail
    assert reply.text == "Simulated reply."
    assert adapter._client() is adapter._client()  # one client, kept alive on the adapter


async def test_bad_key_is_reported_as_a_key_problem(sim, make):
    from ensemble_tui.simulator import Fault

    sim.gemini.push(Fault("bad_key"))
    with pytest.raises(ProviderError) as caught:
        await make("gemini").complete(ask())
    assert caught.value.message == "Gemini: API key rejected (400) - check GEMINI_API_KEY"


async def test_the_turns_sent_in_wire_form_make_the_request_the_sdk_would_make(sim, make, pdf):
    """The adapter writes the turns into the body itself (wire_contents, skipping the SDK's slow
    converter); the simulator must receive what the SDK builds from `types.Content` turns."""
    from google import genai
    from google.genai import types

    texts = ("Première question — “quoted”?", "   ", "Answer with\nlines\tand \\ escapes.", "Last?")
    request = ask(*texts, model="gemini-x", system="Be brief.", temperature=0.4, pdf=pdf)
    await make("gemini").complete(request)
    (ours,) = sim.gemini.calls
    file_uri = ours.body["contents"][0]["parts"][0]["fileData"]["file_uri"]

    contents = []
    for index, turn in enumerate(request.messages):
        parts = [types.Part(text=turn.text if turn.text.strip() else "(empty)")]
        if index == 0:
            parts.insert(0, types.Part(file_data=types.FileData(file_uri=file_uri, mime_type=PDF_MIME)))
        contents.append(types.Content(role="user" if turn.role == "user" else "model", parts=parts))
    client = genai.Client(
        api_key=sim.env["GEMINI_API_KEY"],
        vertexai=False,
        http_options=types.HttpOptions(base_url=sim.env["GOOGLE_GEMINI_BASE_URL"], timeout=_ms(180)),
    )
    await client.aio.models.generate_content(
        model="gemini-x",
        contents=contents,
        config=types.GenerateContentConfig(
            system_instruction="Be brief.", tools=[types.Tool(google_search=types.GoogleSearch())], temperature=0.4
        ),
    )
    await client.aio.aclose()
    _, sdks = sim.gemini.calls
    assert ours.path == sdks.path and ours.body == sdks.body
