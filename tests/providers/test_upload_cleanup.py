"""The clean-up of what the app uploaded, with the real SDKs against the simulator: the start-up
clean-up deletes only uploads no chat has used for the retention period, `--prune` only those no
chat uses now, and a provider that refuses is summed up in one line."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.store.upload_registry import UploadRegistry, file_sha256, utc_now
from ensemble_tui.core.upload_cleanup import CleanupReport, clean_up_uploads, prune_unused_uploads
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.io_loop import on_io_loop
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator import Fault, Simulator

LABELS = ("ChatGPT", "Claude", "Gemini")


@pytest.fixture
async def workspace(home: Path, sim: Simulator) -> AsyncIterator[Workspace]:
    workspace = Workspace.open(home)
    providers, unavailable = build_providers(workspace, env=sim.env)
    workspace.attach_providers(providers, unavailable)
    yield workspace
    for provider in workspace.providers.values():
        await provider.aclose()  # type: ignore[attr-defined]
    workspace.close()


@pytest.fixture
def other_pdf(sample_pdf: Path, tmp_path: Path) -> Path:
    path = tmp_path / "other.pdf"
    shutil.copyfile(sample_pdf, path)
    with path.open("ab") as handle:
        handle.write(b"\n% another paper\n")
    return path


async def uploaded(workspace: Workspace, pdf: Path) -> None:
    """Select `pdf` in the current chat and wait until every provider has it."""
    workspace.select_pdf(pdf)
    for label in LABELS:
        provider = workspace.providers[label]
        await on_io_loop(provider.uploads.file_ref(pdf))  # type: ignore[attr-defined]


def last_used_days_ago(registry: UploadRegistry, sha: str, days: float) -> None:
    for item in registry.all():
        if item.sha256 == sha:
            for use in item.uses:
                registry.used(item.provider, item.file_id, use.session, utc_now() - timedelta(days=days))


def held(sim: Simulator) -> int:
    return sum(len(script.stored) for script in sim.scripts.values())


async def test_start_up_clean_up_deletes_only_what_no_chat_used_for_the_period(workspace, sim, sample_pdf, other_pdf):
    registry = UploadRegistry(workspace.archive)
    await uploaded(workspace, sample_pdf)
    workspace.new_chat()
    await uploaded(workspace, other_pdf)
    last_used_days_ago(registry, file_sha256(sample_pdf), 8)
    last_used_days_ago(registry, file_sha256(other_pdf), 6)
    assert await clean_up_uploads(workspace) == []
    assert sorted(r.provider for s in sim.scripts.values() for r in s.deletes) == ["anthropic", "gemini", "openai"]
    assert {item.sha256 for item in registry.all()} == {file_sha256(other_pdf)}
    assert held(sim) == 3


async def test_the_current_chats_pdf_is_kept_however_old(workspace, sim, sample_pdf):
    registry = UploadRegistry(workspace.archive)
    await uploaded(workspace, sample_pdf)
    last_used_days_ago(registry, file_sha256(sample_pdf), 30)
    assert await clean_up_uploads(workspace) == []
    assert len(registry.all()) == 3 and held(sim) == 3
    assert all(script.deletes == [] for script in sim.scripts.values())


async def test_retention_comes_from_settings(workspace, sim, sample_pdf, other_pdf):
    registry = UploadRegistry(workspace.archive)
    await uploaded(workspace, sample_pdf)
    workspace.new_chat()
    await uploaded(workspace, other_pdf)
    last_used_days_ago(registry, file_sha256(sample_pdf), 8)
    workspace.update_settings(upload_retention_days=10)
    await clean_up_uploads(workspace)
    assert len(registry.all()) == 6  # 8 days is within 10
    workspace.update_settings(upload_retention_days=5)
    await clean_up_uploads(workspace)
    assert len(registry.all()) == 3


async def test_expired_uploads_are_struck_off_without_a_delete(workspace, sim, sample_pdf, other_pdf):
    registry = UploadRegistry(workspace.archive)
    await uploaded(workspace, sample_pdf)
    workspace.new_chat()
    await uploaded(workspace, other_pdf)
    (gemini,) = [i for i in registry.all() if i.provider == "Gemini" and i.sha256 == file_sha256(sample_pdf)]
    registry.add(replace(gemini, expires_at=utc_now() - timedelta(hours=1)), None)
    last_used_days_ago(registry, file_sha256(sample_pdf), 8)
    await clean_up_uploads(workspace)
    assert sim.gemini.deletes == []
    assert len(sim.openai.deletes) == 1 and len(sim.anthropic.deletes) == 1
    assert len(registry.all()) == 3


async def test_a_refused_delete_is_one_line_and_the_upload_stays_listed(workspace, sim, sample_pdf, other_pdf):
    registry = UploadRegistry(workspace.archive)
    await uploaded(workspace, sample_pdf)
    workspace.new_chat()
    await uploaded(workspace, other_pdf)
    last_used_days_ago(registry, file_sha256(sample_pdf), 8)
    sim.anthropic.push_delete(Fault("server_error"))
    lines = await clean_up_uploads(workspace)
    assert len(lines) == 1
    assert lines[0].startswith("Claude did not delete an uploaded PDF (") and "\n" not in lines[0]
    stale = [i.provider for i in registry.all() if i.sha256 == file_sha256(sample_pdf)]
    assert stale == ["Claude"]  # tried again at the next start
    assert await clean_up_uploads(workspace) == []
    assert [i.sha256 for i in registry.all()] == [file_sha256(other_pdf)] * 3


async def test_prune_deletes_only_uploads_no_chat_uses_now(workspace, sim, sample_pdf, other_pdf, tmp_path):
    registry = UploadRegistry(workspace.archive)
    await uploaded(workspace, sample_pdf)  # chat 1 keeps this PDF
    workspace.new_chat()
    third = tmp_path / "third.pdf"
    third.write_bytes(other_pdf.read_bytes() + b"% third\n")
    await uploaded(workspace, third)
    await uploaded(workspace, other_pdf)  # chat 2 switched to another PDF: `third` serves no chat now
    report = await prune_unused_uploads(workspace)
    assert {item.sha256 for item in report.deleted} == {file_sha256(third)}
    assert len(report.deleted) == 3 and report.refused == {}
    assert {item.sha256 for item in registry.all()} == {file_sha256(sample_pdf), file_sha256(other_pdf)}
    assert held(sim) == 6


async def test_the_app_cleans_up_after_its_first_frame_and_a_refusal_is_one_line(workspace, sim, sample_pdf, other_pdf):
    from ensemble_tui.bootstrap import build_app
    from ensemble_tui.ui.chat_log.chat_view import ChatNotice
    from ensemble_tui.ui.gc_schedule import CollectorPolicy
    from ensemble_tui.ui.notify import RecordingNotifier

    registry = UploadRegistry(workspace.archive)
    await uploaded(workspace, sample_pdf)
    workspace.new_chat()
    await uploaded(workspace, other_pdf)
    last_used_days_ago(registry, file_sha256(sample_pdf), 8)
    sim.openai.push_delete(Fault("server_error"))
    app = build_app(workspace, notifier=RecordingNotifier(), collector=CollectorPolicy(enabled=False))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):
            if any(script.deletes for script in (sim.anthropic, sim.gemini)):
                break
            await pilot.pause(0.02)
        await app.workers.wait_for_complete()
        await pilot.pause()
        lines = [str(notice.content) for notice in app.query(ChatNotice)]
    assert sorted(r.provider for s in (sim.anthropic, sim.gemini) for r in s.deletes) == ["anthropic", "gemini"]
    (refused,) = [line for line in lines if "ChatGPT" in line and "delete" in line.lower()]
    assert "\n" not in refused


async def test_deleting_a_chat_frees_its_pdfs_uploads_unless_another_chat_uses_it(
    workspace, sim, sample_pdf, other_pdf
):
    from ensemble_tui.core.upload_cleanup import free_uploads_of

    await uploaded(workspace, sample_pdf)
    workspace.session.history.append(ChatMessage(role="user", text="First chat"))
    workspace.persist()
    first = workspace.session.id
    workspace.new_chat()
    await uploaded(workspace, other_pdf)
    assert held(sim) == 6
    pdf = workspace.store.delete(first)
    assert pdf == str(sample_pdf.resolve())
    report = await free_uploads_of(workspace, pdf)
    assert len(report.deleted) == 3 and held(sim) == 3  # the other chat's uploads stay
    assert await free_uploads_of(workspace, str(other_pdf)) == CleanupReport()  # in use: kept
    assert held(sim) == 3
