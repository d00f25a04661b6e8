"""Uploads kept in the archive's registry: reused by the next run and by other chats, uploaded
again once expired or gone, never two copies at one provider; and the providers' own list and
delete (real SDKs against the simulator)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.store.upload_registry import UploadRegistry, file_sha256, utc_now
from ensemble_tui.providers.base import SdkProvider
from ensemble_tui.providers.io_loop import on_io_loop
from ensemble_tui.providers.uploads import UploadBook
from ensemble_tui.simulator import Fault, ScriptedReply, Simulator
from tests.providers.provider_support import NAMES, PROVIDERS, ask


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[UploadRegistry]:
    archive = RunArchive(tmp_path / "History.sqlite3")
    yield UploadRegistry(archive)
    archive.close()


def keeping(adapter: SdkProvider, registry: UploadRegistry, chat: list[str]) -> SdkProvider:
    """The adapter as the app builds it: uploads kept in `registry`, used by chat `chat[0]`."""
    adapter.uploads.keep_in(UploadBook(registry, lambda: chat[0]), adapter.delete_file)
    return adapter


async def eventually(condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
    for _ in range(int(timeout_s / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the condition never held")


def sim_ids(sim: Simulator, name: str) -> list[str]:
    return [file.id for file in sim.scripts[name].stored]


@pytest.mark.parametrize("name", NAMES)
async def test_the_next_run_reuses_the_upload(name, sim, make, pdf, registry):
    chat = ["chat-1"]
    await keeping(make(name), registry, chat).complete(ask(pdf=pdf))
    # a new process: a fresh adapter (empty in-memory cache) over the same archive
    await keeping(make(name), registry, chat).complete(ask("Again?", pdf=pdf))
    script = sim.scripts[name]
    assert len(script.uploads) == 1
    (only,) = sim_ids(sim, name)
    assert [call.file_ids for call in script.calls] == [(only,), (only,)]
    (stored,) = registry.all()
    assert stored.provider == PROVIDERS[name][1] and stored.sha256 == file_sha256(pdf)
    assert stored.size == pdf.stat().st_size and stored.name == "paper.pdf"
    assert [use.session for use in stored.uses] == ["chat-1"]


async def test_another_chat_with_the_same_pdf_shares_the_upload(sim, make, pdf, registry, tmp_path):
    copy = tmp_path / "copy of paper.pdf"
    copy.write_bytes(pdf.read_bytes())
    chat = ["chat-1"]
    await keeping(make("anthropic"), registry, chat).complete(ask(pdf=pdf))
    chat[0] = "chat-2"
    await keeping(make("anthropic"), registry, chat).complete(ask(pdf=copy))
    assert len(sim.anthropic.uploads) == 1
    (stored,) = registry.all()
    assert sorted(use.session for use in stored.uses) == ["chat-1", "chat-2"]


async def test_gemini_uploads_again_once_the_stored_expiry_has_passed(sim, make, pdf, registry):
    chat = ["chat-1"]
    await keeping(make("gemini"), registry, chat).complete(ask(pdf=pdf))
    (first,) = registry.all()
    assert timedelta(hours=47) < first.expires_at - first.uploaded_at <= timedelta(hours=48, seconds=1)
    # two days later: Gemini has dropped the file, and the registry says it expired
    sim.gemini.expire_files()
    registry.add(replace(first, expires_at=utc_now() - timedelta(minutes=1)), None)
    await keeping(make("gemini"), registry, chat).complete(ask("Two days on?", pdf=pdf))
    assert len(sim.gemini.uploads) == 2
    (second_id,) = sim_ids(sim, "gemini")
    # no call was sent with the expired file first: the new upload was made before the call
    assert [call.file_ids for call in sim.gemini.calls] == [(first.ref.rsplit("/", 1)[-1],), (second_id,)]
    assert sim.gemini.deletes == []  # nothing to delete: Gemini dropped it
    (kept,) = registry.all()
    assert kept.file_id == f"files/{second_id}"


@pytest.mark.parametrize("name", NAMES)
async def test_a_file_the_provider_lost_is_uploaded_again_and_struck_off(name, sim, make, pdf, registry):
    chat = ["chat-1"]
    await keeping(make(name), registry, chat).complete(ask(pdf=pdf))
    (lost,) = registry.all()
    sim.scripts[name].expire_files()  # deleted behind the app's back
    sim.scripts[name].push(ScriptedReply("after the re-upload"))
    reply = await keeping(make(name), registry, chat).complete(ask("Still there?", pdf=pdf))
    assert reply.text == "after the re-upload"
    assert len(sim.scripts[name].uploads) == 2
    (kept,) = registry.all()
    assert kept.file_id != lost.file_id
    assert sim.scripts[name].calls[-1].file_ids == (sim_ids(sim, name)[0],)


async def test_a_copy_about_to_expire_is_replaced_and_deleted(sim, make, pdf, registry):
    """Never two copies at one provider: the new upload's older twin is deleted at once."""
    chat = ["chat-1"]
    await keeping(make("openai"), registry, chat).complete(ask(pdf=pdf))
    (old,) = registry.all()
    registry.add(replace(old, expires_at=utc_now() + timedelta(minutes=5)), None)
    adapter = keeping(make("openai"), registry, chat)
    await adapter.complete(ask("Later?", pdf=pdf))
    # the older copy is deleted in the background, so the call does not wait for it
    await eventually(lambda: len(registry.all()) == 1)
    assert len(sim.openai.uploads) == 2
    assert [request.path for request in sim.openai.deletes] == [f"/v1/files/{old.file_id}"]
    assert [file.id for file in sim.openai.stored] == [registry.all()[0].file_id]


async def test_openai_upload_expiry_follows_the_retention_period(sim, make, pdf, registry):
    adapter = keeping(make("openai"), registry, ["chat-1"])
    adapter.retention_s = 3 * 86_400
    await adapter.complete(ask(pdf=pdf))
    (upload,) = sim.openai.uploads
    assert upload.multipart["fields"]["expires_after[seconds]"] == str(3 * 86_400)
    (stored,) = registry.all()
    assert abs((stored.expires_at - stored.uploaded_at) - timedelta(days=3)) < timedelta(seconds=5)
    (held,) = sim.openai.stored
    assert held.expires_at == pytest.approx(held.created_at + 3 * 86_400)


@pytest.mark.parametrize("name", NAMES)
async def test_list_and_delete_through_the_sdk(name, sim, make, pdf):
    adapter = make(name)
    await adapter.complete(ask(pdf=pdf))
    (remote,) = await adapter.list_files()
    assert remote.name == "paper.pdf" and remote.size == pdf.stat().st_size
    assert remote.created_at is not None
    assert await adapter.delete_file(remote.file_id) is True
    assert sim.scripts[name].stored == []
    assert await adapter.list_files() == []
    assert await adapter.delete_file(remote.file_id) is False  # gone already: not an error


@pytest.mark.parametrize("name", NAMES)
async def test_a_refused_delete_is_a_provider_error(name, sim, make, pdf):
    from ensemble_tui.core.provider import ProviderError

    adapter = make(name)
    await adapter.complete(ask(pdf=pdf))
    (remote,) = await adapter.list_files()
    sim.scripts[name].push_delete(Fault("server_error"))
    with pytest.raises(ProviderError) as raised:
        await adapter.delete_file(remote.file_id)
    assert PROVIDERS[name][1] in raised.value.message
    assert len(sim.scripts[name].stored) == 1


async def test_gemini_list_pages_as_the_sdk_reads_them(sim, make, tmp_path):
    adapter = make("gemini")
    for index in range(7):
        path = tmp_path / f"paper-{index}.pdf"
        path.write_bytes(b"%PDF-1.7\n" + bytes([index]) * 64)
        await adapter.complete(ask(pdf=path))
    assert len(await adapter.list_files()) == 7
    # the SDK's pager follows `nextPageToken` through pages of 3
    client = adapter._client()

    async def listed_in_threes() -> list[str]:
        return [item.name async for item in await client.aio.files.list(config={"page_size": 3})]

    names = await on_io_loop(listed_in_threes())  # the client lives on the provider loop
    assert len(set(names)) == 7
    pages = [r for r in sim.gemini.requests if r.endpoint == "file_list" and r.query.get("pageSize") == "3"]
    assert len(pages) == 3
