"""The simulator itself: scripting, recording, clean stops, Chat Completions providers side by side,
and the demo's scripted roles."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request

import pytest

from ensemble_tui.core.turn.styles.verdict import parse_verdict
from ensemble_tui.simulator import Fault, RecordedRequest, ScriptedReply, Simulator, closed_port_url
from ensemble_tui.simulator.demo import REVISED_MARK, demo_environment, start_demo
from ensemble_tui.simulator.standby import standby_demo
from tests.providers.provider_support import ask


async def test_match_and_unless_pick_the_reply_for_a_role(sim, make):
    sim.openai.push(
        ScriptedReply("FINAL REPLY: aggregated", match="# Proposed Reply 1:"),
        ScriptedReply("a proposal", unless="# Proposed Reply 1:"),
    )
    adapter = make("openai")
    proposal = await adapter.complete(ask("What is it?"))
    aggregate = await adapter.complete(ask("What is it?\n\n# Proposed Reply 1:\nx"))
    assert (proposal.text, aggregate.text) == ("a proposal", "FINAL REPLY: aggregated")
    assert sim.openai.pending == []


async def test_default_reply_may_be_a_function_of_the_request(sim, make):
    sim.gemini.default = lambda request: ScriptedReply("echo: " + request.last_user_text)
    reply = await make("gemini").complete(ask("First?", "Answer.", "Second?"))
    assert reply.text == "echo: Second?"


async def test_scripted_latency_is_played(sim, make):
    sim.anthropic.push(ScriptedReply("slow", latency_s=0.3))
    started = time.monotonic()
    await make("anthropic").complete(ask())
    assert time.monotonic() - started >= 0.3


def test_unknown_paths_and_missing_keys_are_refused(sim):
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(sim.url + "/elsewhere", timeout=5)
    assert caught.value.code == 404
    request = urllib.request.Request(sim.base_urls["openai"] + "/responses", data=b"{}", method="POST")
    request.add_header("content-type", "application/json")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=5)
    assert caught.value.code == 401
    assert sim.openai.requests[0].endpoint == "generate"


def test_stop_ends_a_hanging_request_at_once():
    sim = Simulator().start()
    sim.openai.push(Fault("hang", hang_s=60))
    request = urllib.request.Request(sim.base_urls["openai"] + "/responses", data=b'{"model": "m"}', method="POST")
    request.add_header("authorization", "Bearer sk-test")
    request.add_header("content-type", "application/json")
    outcome: list[object] = []
    client = threading.Thread(target=lambda: outcome.append(_attempt(request)))
    client.start()
    for _ in range(200):
        if sim.openai.requests:
            break
        time.sleep(0.01)
    started = time.monotonic()
    sim.stop()
    client.join(timeout=5)
    assert time.monotonic() - started < 2
    assert not client.is_alive()
    assert outcome and isinstance(outcome[0], Exception)
    with pytest.raises(RuntimeError):
        _ = sim.url  # stopped


def _attempt(request: urllib.request.Request) -> object:
    try:
        return urllib.request.urlopen(request, timeout=10)
    except Exception as exc:
        return exc


def test_env_points_every_sdk_here(sim):
    env = sim.env
    assert env["OPENAI_BASE_URL"].endswith("/openai/v1")
    assert env["ANTHROPIC_BASE_URL"].endswith("/anthropic")
    assert env["GOOGLE_GEMINI_BASE_URL"].endswith("/gemini")
    assert all(value.startswith("http://127.0.0.1:") for name, value in env.items() if name.endswith("_BASE_URL"))
    assert {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"} <= set(env)


@pytest.fixture
def demo():
    simulator = start_demo(seed=1)
    simulator.latency = (0.0, 0.01)
    yield simulator
    simulator.stop()


async def test_demo_replies_say_they_are_simulated_and_resynthesize_once(demo, make, pdf):
    from ensemble_tui.providers.credentials import Credentials
    from ensemble_tui.providers.openai_adapter import OpenAIProvider

    adapter = OpenAIProvider(
        "ChatGPT", Credentials(demo.env["OPENAI_API_KEY"], "OPENAI_API_KEY", demo.env["OPENAI_BASE_URL"])
    )
    try:
        proposal = await adapter.complete(ask("What does the paper claim?", pdf=pdf))
        assert "Simulated ChatGPT reply" in proposal.text and "What does the paper claim?" in proposal.text
        assert proposal.sources
        first_pass = await adapter.complete(ask("Q?\n\n---\n\nAggregate.\n\n# Proposed Reply 1:\n" + proposal.text))
        assert parse_verdict(first_pass.text).kind == "resynthesize"
        resynthesis = (
            "# Proposed Reply 1:\nx\n\n# Remarks from the aggregator\nmore\n\nYour own proposal was Proposed Reply 1."
        )
        revision = await adapter.complete(ask("Q?\n\n---\n\n" + resynthesis))
        assert REVISED_MARK in revision.text
        second_pass = await adapter.complete(ask("Q?\n\n---\n\nAggregate.\n\n# Proposed Reply 1:\n" + revision.text))
        verdict = parse_verdict(second_pass.text)
        assert verdict.kind == "final" and "Simulated final reply" in verdict.text
    finally:
        await adapter.aclose()


def test_demo_environment_runs_for_the_block():
    with demo_environment() as env:
        base = env["OPENAI_BASE_URL"].rsplit("/openai", 1)[0]
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(base + "/nowhere", timeout=5)
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(base + "/nowhere", timeout=2)


async def test_a_demo_on_standby_answers_a_question_asked_before_its_server_started():
    from ensemble_tui.providers.credentials import Credentials
    from ensemble_tui.providers.openai_adapter import OpenAIProvider

    with standby_demo(seed=1) as standby:
        env = standby.env
        adapter = OpenAIProvider(
            "ChatGPT", Credentials(env["OPENAI_API_KEY"], "OPENAI_API_KEY", env["OPENAI_BASE_URL"])
        )
        try:
            asked = asyncio.ensure_future(adapter.complete(ask("Asked before the server ran?")))
            await asyncio.sleep(0.3)
            assert not asked.done() and standby.demo is None  # waiting in the port's backlog
            standby.start()
            assert standby.demo is not None and env == standby.demo.env
            standby.demo.latency = (0.0, 0.01)
            reply = await asyncio.wait_for(asked, timeout=20)
            assert "Simulated ChatGPT reply" in reply.text and "Asked before the server ran?" in reply.text
        finally:
            await adapter.aclose()
    with pytest.raises(urllib.error.URLError):  # the block's end closes the port
        urllib.request.urlopen(env["OPENAI_BASE_URL"] + "/files", timeout=2)


def test_a_demo_that_never_started_closes_its_port():
    with standby_demo() as standby:
        url = standby.url
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/nowhere", timeout=2)


async def test_each_chat_provider_has_its_own_script_and_records(sim, make_chat):
    sim.chat("DeepSeek").push(ScriptedReply("from deepseek"))
    sim.chat("my vLLM").push(ScriptedReply("from vllm"))
    assert sim.chat_base_url("my vLLM").endswith("/chat/my-vllm/v1")
    first = await make_chat("DeepSeek").complete(ask())
    second = await make_chat("My vLLM", base_url=sim.chat_base_url("my-vllm")).complete(ask())
    assert (first.text, second.text) == ("from deepseek", "from vllm")
    assert [request.provider for request in sim.requests] == ["deepseek", "my-vllm"]
    assert len(sim.chat("deepseek").calls) == 1 and sim.openai.requests == []
    assert sim.env["ENSEMBLE_TUI_SIMULATOR_CHAT_URL"] == sim.url + "/chat"


def test_chat_paths_refuse_what_they_do_not_serve(sim):
    request = urllib.request.Request(sim.chat_base_url("ollama") + "/models", method="GET")
    request.add_header("authorization", "Bearer x")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=5)
    assert caught.value.code == 404
    unauthorized = urllib.request.Request(
        sim.chat_base_url("ollama") + "/chat/completions", data=b'{"model": "m"}', method="POST"
    )
    unauthorized.add_header("content-type", "application/json")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(unauthorized, timeout=5)
    assert caught.value.code == 401


def test_a_closed_port_refuses_connections():
    url = closed_port_url()
    with pytest.raises(urllib.error.URLError) as caught:
        urllib.request.urlopen(url + "/models", timeout=2)
    assert isinstance(caught.value.reason, ConnectionRefusedError)


async def test_demo_chat_providers_answer_as_simulated(demo, make_chat):
    from ensemble_tui.providers.chat_completions_adapter import ChatCompletionsProvider
    from ensemble_tui.providers.credentials import Credentials

    adapter = ChatCompletionsProvider(
        "DeepSeek", Credentials("sk-sim", "DEEPSEEK_API_KEY", demo.chat_base_url("deepseek"))
    )
    try:
        reply = await adapter.complete(ask("What does the paper claim?"))
    finally:
        await adapter.aclose()
    assert "Simulated deepseek reply" in reply.text and "What does the paper claim?" in reply.text


def _generate_request(api: str) -> RecordedRequest:
    path = {"openai": "/v1/responses", "anthropic": "/v1/messages", "gemini": "/v1/models/test-model:generateContent"}
    return RecordedRequest(api, "generate", "POST", path.get(api, "/v1/chat/completions"), {}, {}, {"model": "m"})


@pytest.mark.parametrize("kind", ["refusal", "blocked"])
def test_withheld_answers_have_each_sdks_own_shape(kind):
    """The refusal and content-filter bodies validate against the installed SDKs' response types,
    so the adapters meet them exactly as they would meet the real APIs'."""
    from anthropic.types.beta import BetaMessage
    from google.genai import types
    from openai.types.chat import ChatCompletion
    from openai.types.responses import Response

    from ensemble_tui.simulator import anthropic_api, chat_api, gemini_api, openai_api

    def body(api, name):
        return json.loads(api.stopped(kind, _generate_request(name)).body)

    response = Response.model_validate(body(openai_api, "openai"))
    message = BetaMessage.model_validate(body(anthropic_api, "anthropic"))
    gemini = types.GenerateContentResponse.model_validate(body(gemini_api, "gemini"))
    completion = ChatCompletion.model_validate(body(chat_api, "chat"))
    assert response.output_text == "" and message.stop_reason == "refusal"
    if kind == "refusal":
        assert [part.type for part in response.output[0].content] == ["refusal"]
        assert message.content and message.stop_details is not None
        assert gemini.candidates[0].finish_reason == types.FinishReason.SAFETY
        assert gemini.candidates[0].content is None
        assert completion.choices[0].message.refusal and completion.choices[0].message.content is None
    else:
        assert response.status == "incomplete" and response.incomplete_details.reason == "content_filter"
        assert message.content == []
        assert not gemini.candidates and gemini.prompt_feedback.block_reason == types.BlockedReason.SAFETY
        assert completion.choices[0].finish_reason == "content_filter"


def _post(sim: Simulator) -> tuple[int, str, bytes] | Exception:
    request = urllib.request.Request(sim.base_urls["openai"] + "/responses", data=b'{"model": "m"}', method="POST")
    request.add_header("authorization", "Bearer sk-test")
    request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, reply.headers["content-type"], reply.read()
    except Exception as exc:
        return exc


def test_malformed_is_a_whole_reply_with_a_broken_json_body(sim):
    sim.openai.push(Fault("malformed"))
    status, content_type, data = _post(sim)
    assert (status, content_type) == (200, "application/json")
    assert data.startswith(b'{"id": "resp_')
    with pytest.raises(json.JSONDecodeError):
        json.loads(data)


def test_reset_closes_the_connection_without_a_reply(sim):
    sim.openai.push(Fault("reset"))
    outcome = _post(sim)
    assert isinstance(outcome, Exception) and not isinstance(outcome, urllib.error.HTTPError)
    assert len(sim.openai.calls) == 1


def test_reset_forgets_scripts_and_records(sim):
    sim.openai.push(Fault("server_error"))
    sim.gemini.default = ScriptedReply("changed")
    _post(sim)
    sim.reset()
    assert sim.requests == [] and sim.openai.pending == [] and sim.openai.calls == []
    assert sim.gemini.default == ScriptedReply("Simulated reply.")
    assert _post(sim)[0] == 200
