"""How the Chat Completions adapter classifies failures: HTTP faults from the simulator, a local
server that is not running (one fatal line, one attempt), and OpenRouter's errors in a 200 body."""

from __future__ import annotations

import asyncio

import pytest

from ensemble_tui.core.provider import ErrorKind, ProviderError
from ensemble_tui.simulator import Fault, closed_port_url
from ensemble_tui.simulator.wire import HttpReply
from tests.providers.provider_support import ask

FAULTS = {
    "server_error": (ErrorKind.TRANSIENT, "DeepSeek: server error (500)"),
    "unavailable": (ErrorKind.TRANSIENT, "DeepSeek: server error (503)"),
    "overloaded": (ErrorKind.OVERLOADED, "DeepSeek: overloaded (503) - will retry"),
    "drop": (ErrorKind.TRANSIENT, "DeepSeek: connection failed"),
    "reset": (ErrorKind.TRANSIENT, "DeepSeek: connection failed (Server disconnected without sending a response.)"),
    "malformed": (ErrorKind.TRANSIENT, "DeepSeek: unreadable reply (invalid JSON)"),
    "refusal": (ErrorKind.FATAL, "DeepSeek: declined to answer (refusal) - rephrase the question or try another model"),
    "blocked": (ErrorKind.FATAL, "DeepSeek: declined to answer (content filter) - rephrase the question"),
    "bad_key": (ErrorKind.FATAL, "DeepSeek: API key rejected (401) - check DEEPSEEK_API_KEY"),
    "unknown_model": (
        ErrorKind.FATAL,
        "DeepSeek: model test-model is not served (retired?) - pick another in Settings",
    ),
    "bad_request": (ErrorKind.FATAL, "DeepSeek: request rejected (400): Invalid request."),
}


@pytest.fixture
def attempts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every HTTP request the SDKs send, counted at the transport (refused ones included)."""
    import httpx2

    sent: list[str] = []
    original = httpx2.AsyncHTTPTransport.handle_async_request

    async def counting(self, request):
        sent.append(str(request.url))
        return await original(self, request)

    monkeypatch.setattr(httpx2.AsyncHTTPTransport, "handle_async_request", counting)
    return sent


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_fault_classification_with_a_single_attempt(sim, make_chat, fault):
    kind, message = FAULTS[fault]
    sim.chat("deepseek").push(Fault(fault))  # type: ignore[arg-type]
    with pytest.raises(ProviderError) as caught:
        await make_chat().complete(ask())
    assert caught.value.kind is kind
    assert caught.value.message.startswith(message)
    assert "\n" not in caught.value.message
    assert len(sim.chat("deepseek").calls) == 1  # SDK retries are off: the engine owns them


async def test_rate_limit_carries_the_retry_after(sim, make_chat):
    sim.chat("deepseek").push(Fault("rate_limit", retry_after=7))
    with pytest.raises(ProviderError) as caught:
        await make_chat().complete(ask())
    assert caught.value.kind is ErrorKind.RATE_LIMITED
    assert caught.value.retry_after == pytest.approx(7)


async def test_a_hang_times_out_as_transient(sim, make_chat):
    sim.chat("deepseek").push(Fault("hang", hang_s=10))
    started = asyncio.get_running_loop().time()
    with pytest.raises(ProviderError) as caught:
        await make_chat().complete(ask(timeout_s=0.5))
    assert asyncio.get_running_loop().time() - started < 3
    assert caught.value.message == "DeepSeek: no answer within 0.5 s"


async def test_a_server_message_is_quoted_without_the_key(sim, make_chat):
    adapter = make_chat()
    key = adapter.credentials.key
    sim.chat("deepseek").push(Fault("bad_request", message=f"Unknown parameter 'plugins' (key {key})"))
    with pytest.raises(ProviderError) as caught:
        await adapter.complete(ask())
    assert "Unknown parameter 'plugins'" in caught.value.message
    assert key not in caught.value.message


async def test_a_keyless_server_that_wants_a_key_points_at_the_configuration(sim, make_chat):
    sim.chat("ollama").push(Fault("bad_key"))
    with pytest.raises(ProviderError) as caught:
        await make_chat("Ollama", key_var=None, local=True).complete(ask())
    assert caught.value.message == "Ollama: API key rejected (401) - check key_env in Ollama.json"


async def test_a_local_server_that_is_not_running_is_one_fatal_line_after_one_attempt(make_chat, attempts):
    base_url = closed_port_url()
    adapter = make_chat("Ollama", key_var=None, local=True, base_url=base_url)
    with pytest.raises(ProviderError) as caught:
        await adapter.complete(ask(model="llama3.1:8b"))
    origin = base_url.removesuffix("/v1")
    assert caught.value.kind is ErrorKind.FATAL and not caught.value.retryable
    assert caught.value.message == (
        f"Ollama at {origin} is not reachable - start it, or set enabled: false in Ollama.json"
    )
    assert attempts == [f"{base_url}/chat/completions"]


async def test_a_remote_server_that_refuses_is_transient(make_chat, attempts):
    adapter = make_chat("DeepSeek", base_url=closed_port_url())
    with pytest.raises(ProviderError) as caught:
        await adapter.complete(ask())
    assert caught.value.kind is ErrorKind.TRANSIENT
    assert caught.value.message.startswith("DeepSeek: connection failed")
    assert len(attempts) == 1


async def test_a_local_server_that_drops_the_reply_is_transient(sim, make_chat):
    sim.chat("ollama").push(Fault("drop"))  # it is running: a retry may well work
    with pytest.raises(ProviderError) as caught:
        await make_chat("Ollama", key_var=None, local=True).complete(ask())
    assert caught.value.kind is ErrorKind.TRANSIENT


@pytest.mark.parametrize(
    ("error", "kind", "message"),
    [
        ({"code": 502, "message": "upstream failed"}, ErrorKind.TRANSIENT, "OpenRouter: server error (502)"),
        ({"code": 402, "message": "no credits"}, ErrorKind.FATAL, "OpenRouter: payment required (402)"),
        ({"message": "odd"}, ErrorKind.TRANSIENT, "OpenRouter: the reply held no answer (odd)"),
    ],
)
async def test_an_error_inside_a_200_reply(sim, make_chat, monkeypatch, error, kind, message):
    from ensemble_tui.simulator import chat_api

    def failed(request, reply):
        return HttpReply.json(200, {"id": "gen-1", "object": "chat.completion", "choices": [], "error": error})

    monkeypatch.setattr(chat_api, "render", failed)
    with pytest.raises(ProviderError) as caught:
        await make_chat("OpenRouter", key_var="OPENROUTER_API_KEY").complete(ask())
    assert caught.value.kind is kind
    assert caught.value.message.startswith(message)
