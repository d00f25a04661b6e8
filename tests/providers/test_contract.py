"""What every adapter must do, run with the real SDK of each provider against the simulator:
uploads (once per file content, in the background, again when the file is gone), error
classification for every fault, no SDK retries, and keys kept out of everything but auth."""

from __future__ import annotations

import asyncio
import hashlib
import shutil

import pytest

from ensemble_tui.core.provider import ErrorKind, Provider, ProviderError
from ensemble_tui.simulator import Fault, ScriptedReply, Simulator
from tests.providers.provider_support import NAMES, PROVIDERS, ask

pytestmark = pytest.mark.parametrize("name", NAMES)


def file_ids(sim: Simulator, name: str) -> list[tuple[str, ...]]:
    return [call.file_ids for call in sim.scripts[name].calls]


async def test_adapter_satisfies_the_protocol(name, make):
    assert isinstance(make(name), Provider)


async def test_one_upload_per_file_content_and_file_id_on_every_call(name, sim, make, pdf, tmp_path):
    adapter = make(name)
    adapter.prepare(pdf)
    await asyncio.gather(*(adapter.complete(ask("Q1?", pdf=pdf)) for _ in range(3)))
    await adapter.complete(ask("Q1?", "A1", "Q2?", pdf=pdf))
    copy = tmp_path / "copy of paper.pdf"
    shutil.copyfile(pdf, copy)
    await adapter.complete(ask("Q3?", pdf=copy))  # same content, other path: no new upload

    script = sim.scripts[name]
    assert len(script.uploads) == 1
    uploaded = next(iter(script.files.values()))
    assert uploaded.sha256 == hashlib.sha256(pdf.read_bytes()).hexdigest()
    assert uploaded.size == pdf.stat().st_size
    ids = file_ids(sim, name)
    assert len(ids) == 5
    assert all(call == (uploaded.id,) for call in ids)


async def test_new_content_is_uploaded_again(name, sim, make, pdf, tmp_path):
    adapter = make(name)
    await adapter.complete(ask(pdf=pdf))
    other = tmp_path / "other.pdf"
    other.write_bytes(b"%PDF-1.7\nanother paper\n%%EOF\n")
    await adapter.complete(ask(pdf=other))
    assert len(sim.scripts[name].uploads) == 2
    first, second = file_ids(sim, name)
    assert first != second


async def test_no_pdf_means_no_upload_and_no_file_part(name, sim, make):
    reply = await make(name).complete(ask("Hello?"))
    assert reply.text == "Simulated reply."
    assert sim.scripts[name].uploads == []
    assert file_ids(sim, name) == [()]


async def test_prepare_uploads_in_the_background(name, sim, make, pdf):
    adapter = make(name)
    adapter.prepare(pdf)
    for _ in range(200):
        if sim.scripts[name].files:
            break
        await asyncio.sleep(0.01)
    assert len(sim.scripts[name].files) == 1
    assert sim.scripts[name].calls == []


def test_prepare_without_an_event_loop_defers_the_upload(name, sim, pdf):
    cls, label, key_var, url_var, _ = PROVIDERS[name]
    from ensemble_tui.providers.credentials import Credentials

    adapter = cls(label, Credentials(sim.env[key_var], key_var, sim.env[url_var]))
    adapter.prepare(pdf)  # e.g. `ask` attaching providers before its loop starts: must not raise
    assert sim.scripts[name].uploads == []


async def test_prepare_never_raises_and_a_failed_upload_is_retried_by_the_next_call(name, sim, make, pdf):
    adapter = make(name)
    sim.scripts[name].push_upload(Fault("server_error"))
    adapter.prepare(pdf)
    adapter.prepare(pdf.with_name("missing.pdf"))  # unreadable: logged, not raised
    for _ in range(200):
        if sim.scripts[name].uploads:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    reply = await adapter.complete(ask(pdf=pdf))
    assert reply.text == "Simulated reply."
    assert len(sim.scripts[name].uploads) == 2
    assert len(file_ids(sim, name)) == 1


async def test_an_upload_failure_is_classified_for_the_engine(name, sim, make, pdf):
    sim.scripts[name].push_upload(Fault("rate_limit", retry_after=3))
    with pytest.raises(ProviderError) as caught:
        await make(name).complete(ask(pdf=pdf))
    assert caught.value.kind is ErrorKind.RATE_LIMITED
    assert sim.scripts[name].calls == []


async def test_a_vanished_pdf_is_a_fatal_error_naming_it(name, make, tmp_path):
    with pytest.raises(ProviderError) as caught:
        await make(name).complete(ask(pdf=tmp_path / "gone.pdf"))
    assert caught.value.kind is ErrorKind.FATAL
    assert "gone.pdf" in caught.value.message
    assert caught.value.message.startswith(PROVIDERS[name][1] + ":")


async def test_expired_file_is_uploaded_again_and_the_call_retried_once(name, sim, make, pdf):
    adapter = make(name)
    await adapter.complete(ask(pdf=pdf))
    sim.scripts[name].expire_files()
    sim.scripts[name].push(ScriptedReply("After re-upload."))
    reply = await adapter.complete(ask(pdf=pdf))

    assert reply.text == "After re-upload."
    script = sim.scripts[name]
    assert len(script.uploads) == 2
    first, failed, retried = file_ids(sim, name)
    assert failed == first
    assert retried != first and retried == (next(iter(script.files)),)
    await adapter.complete(ask(pdf=pdf))
    assert len(script.uploads) == 2  # the new upload is reused


async def test_file_gone_twice_is_a_transient_error_after_one_retry(name, sim, make, pdf):
    adapter = make(name)
    sim.scripts[name].push(Fault("file_gone"), Fault("file_gone"))
    with pytest.raises(ProviderError) as caught:
        await adapter.complete(ask(pdf=pdf))
    assert caught.value.kind is ErrorKind.TRANSIENT
    assert len(sim.scripts[name].calls) == 2
    assert len(sim.scripts[name].uploads) == 2
    await adapter.complete(ask(pdf=pdf))  # the engine's retry uploads afresh
    assert len(sim.scripts[name].uploads) == 3


FAULTS = {
    # fault -> kind per provider (openai, anthropic, gemini), and a piece of the message
    "server_error": ((ErrorKind.TRANSIENT,) * 3, "server error (500)"),
    "unavailable": ((ErrorKind.TRANSIENT,) * 3, "server error (503)"),
    # Anthropic 529; OpenAI and Gemini say "overloaded" with a 503, and get the same aggregator retries
    "overloaded": ((ErrorKind.OVERLOADED,) * 3, "overloaded ("),
    "drop": ((ErrorKind.TRANSIENT,) * 3, "connection failed"),
    "reset": ((ErrorKind.TRANSIENT,) * 3, "connection failed"),
    "malformed": ((ErrorKind.TRANSIENT,) * 3, "unreadable reply (invalid JSON)"),
    "refusal": ((ErrorKind.FATAL,) * 3, "declined to answer"),
    "blocked": ((ErrorKind.FATAL,) * 3, "declined to answer"),
    "bad_key": ((ErrorKind.FATAL,) * 3, "API key rejected"),
    "unknown_model": ((ErrorKind.FATAL,) * 3, "model test-model is not served (retired?) - pick another in Settings"),
    "bad_request": ((ErrorKind.FATAL,) * 3, "request rejected (400)"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_fault_classification_with_a_single_attempt(name, fault, sim, make, pdf):
    kinds, fragment = FAULTS[fault]
    sim.scripts[name].push(Fault(fault))  # type: ignore[arg-type]
    with pytest.raises(ProviderError) as caught:
        await make(name).complete(ask(pdf=pdf))
    error = caught.value
    assert error.kind is kinds[NAMES.index(name)]
    label = PROVIDERS[name][1]
    assert error.message.startswith(f"{label}: ")
    assert fragment in error.message
    assert "\n" not in error.message
    assert len(sim.scripts[name].calls) == 1  # SDK retries are off: the engine owns them


async def test_bad_key_message_names_the_variable_not_the_key(name, sim, make):
    sim.scripts[name].push(Fault("bad_key"))
    with pytest.raises(ProviderError) as caught:
        await make(name).complete(ask())
    key_var = PROVIDERS[name][2]
    assert caught.value.message.endswith(f"- check {key_var}")
    assert sim.env[key_var] not in caught.value.message


async def test_rate_limit_carries_the_retry_after(name, sim, make):
    sim.scripts[name].push(Fault("rate_limit", retry_after=7))
    with pytest.raises(ProviderError) as caught:
        await make(name).complete(ask())
    assert caught.value.kind is ErrorKind.RATE_LIMITED
    assert caught.value.retry_after == pytest.approx(7)
    assert caught.value.retryable


async def test_a_hang_times_out_as_transient_within_the_request_timeout(name, sim, make):
    sim.scripts[name].push(Fault("hang", hang_s=10))
    started = asyncio.get_running_loop().time()
    with pytest.raises(ProviderError) as caught:
        await make(name).complete(ask(timeout_s=0.5))
    assert asyncio.get_running_loop().time() - started < 3
    assert caught.value.kind is ErrorKind.TRANSIENT
    assert "no answer within 0.5 s" in caught.value.message
    assert len(sim.scripts[name].calls) == 1


async def test_a_server_message_is_quoted_without_the_key(name, sim, make):
    key = sim.env[PROVIDERS[name][2]]
    sim.scripts[name].push(Fault("bad_request", message=f"Unsupported parameter 'temperature' (key {key} echoed)"))
    with pytest.raises(ProviderError) as caught:
        await make(name).complete(ask())
    assert "Unsupported parameter 'temperature'" in caught.value.message
    assert key not in caught.value.message
    assert "***" in caught.value.message


async def test_the_key_travels_only_in_the_auth_header(name, sim, make, pdf):
    adapter = make(name)
    await adapter.complete(ask("Q1?", "A1", "Q2?", pdf=pdf))
    key = sim.env[PROVIDERS[name][2]]
    auth_header = PROVIDERS[name][4]
    requests = sim.scripts[name].requests
    assert requests
    for request in requests:
        assert key not in request.path and key not in str(request.query)
        assert key not in request.text
        for header, value in request.headers.items():
            if header != auth_header:
                assert key not in value, header
    authenticated = [request for request in requests if auth_header in request.headers]
    assert all(key in request.headers[auth_header] for request in authenticated)
    assert key not in repr(adapter) and key not in repr(adapter.credentials)


async def test_the_request_timeout_reaches_the_sdk(name, sim, make):
    await make(name).complete(ask(timeout_s=42))
    headers = sim.scripts[name].calls[0].headers
    if name == "gemini":
        assert headers["x-server-timeout"] == "42"  # HttpOptions.timeout is in milliseconds
    else:
        assert float(headers["x-stainless-read-timeout"]) == 42


async def test_sources_are_deduplicated_in_order(name, sim, make):
    urls = ("https://example.org/b", "https://example.org/a", "https://example.org/b")
    sim.scripts[name].push(ScriptedReply("Some context. The cited claim.", citations=urls))
    reply = await make(name).complete(ask())
    assert reply.sources == ("https://example.org/b", "https://example.org/a")
    assert reply.text == "Some context. The cited claim."


async def test_no_web_search_means_no_tool_and_no_sources(name, sim, make):
    sim.scripts[name].push(ScriptedReply("Plain.", citations=("https://example.org/x",)))
    reply = await make(name).complete(ask(web_search=False))
    body = sim.scripts[name].calls[0].body
    assert "tools" not in body
    assert reply.sources == ()
    assert reply.usage.web_searches == 0


async def test_a_pdf_unreadable_at_upload_time_is_fatal(name, make, pdf, monkeypatch):
    adapter = make(name)

    async def vanished(path):
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(adapter, "_upload_pdf", vanished)
    with pytest.raises(ProviderError) as caught:
        await adapter.complete(ask(pdf=pdf))
    assert caught.value.kind is ErrorKind.FATAL
    assert "cannot read the PDF paper.pdf (No such file or directory)" in caught.value.message
