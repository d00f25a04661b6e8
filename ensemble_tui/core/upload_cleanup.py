"""Deleting what the app uploaded once no chat needs it, so files do not pile up in the user's
provider accounts.

Two ways in: `clean_up_uploads` at start-up (the app and `ask` run it in the background, never
waiting for it) deletes uploads no chat has sent for `Settings.upload_retention_days`; and
`prune_unused_uploads` (`ensemble-tui files --prune`) deletes every upload whose PDF no chat has
selected now. Uploads the provider has dropped already (expired, or deleted elsewhere) are only
struck off the list. A provider that refuses a delete is summed up in one line, and the upload
stays on the list for the next try.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO, runtime_checkable

from ensemble_tui.core.provider import ProviderError
from ensemble_tui.core.store.upload_registry import StoredUpload, UploadRegistry, file_sha256, utc_now

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace

log = logging.getLogger(__name__)


@runtime_checkable
class FileKeeper(Protocol):
    """A provider whose uploads stay in the user's storage until deleted (providers.base)."""

    label: str
    keeps_files: bool

    async def delete_file(self, file_id: str) -> bool:
        """True if deleted, False if already gone; raises ProviderError if refused."""
        ...


@dataclass
class CleanupReport:
    deleted: list[StoredUpload] = field(default_factory=list)
    gone: list[StoredUpload] = field(default_factory=list)  # dropped by the provider already
    unreachable: list[StoredUpload] = field(default_factory=list)  # its provider is not available now
    refused: dict[str, list[tuple[StoredUpload, str]]] = field(default_factory=dict)  # provider -> why

    def refusal_lines(self) -> list[str]:
        """One line per provider that refused to delete."""
        lines = []
        for provider, refusals in self.refused.items():
            count = len(refusals)
            files = "an uploaded PDF" if count == 1 else f"{count} uploaded PDFs"
            lines.append(
                f"{provider} did not delete {files} ({refusals[0][1]}); they stay listed in `ensemble-tui files` "
                "and are tried again at the next start."
            )
        return lines


async def delete_uploads(
    uploads: Iterable[StoredUpload],
    providers: Mapping[str, object],
    registry: UploadRegistry,
    *,
    still_wanted: Callable[[StoredUpload], bool] | None = None,
) -> CleanupReport:
    """Delete each upload at its provider and strike it off; providers work in parallel.

    `still_wanted` is asked again just before each delete: another run may have reused the
    upload since the list was made.
    """
    report = CleanupReport()
    now = utc_now()
    by_provider: dict[str, list[StoredUpload]] = {}
    for upload in uploads:
        if upload.expired_at(now):
            await asyncio.to_thread(registry.remove, upload.provider, upload.file_id)
            report.gone.append(upload)
            continue
        by_provider.setdefault(upload.provider, []).append(upload)

    async def delete_all(provider: str, batch: list[StoredUpload]) -> None:
        keeper = providers.get(provider)
        if not isinstance(keeper, FileKeeper) or not keeper.keeps_files:
            report.unreachable.extend(batch)
            return
        for upload in batch:
            if still_wanted is not None and not await asyncio.to_thread(still_wanted, upload):
                continue
            try:
                deleted = await keeper.delete_file(upload.file_id)
            except ProviderError as exc:
                report.refused.setdefault(provider, []).append((upload, exc.message))
                continue
            await asyncio.to_thread(registry.remove, upload.provider, upload.file_id)
            (report.deleted if deleted else report.gone).append(upload)

    await asyncio.gather(*(delete_all(provider, batch) for provider, batch in by_provider.items()))
    return report


async def clean_up_uploads(workspace: Workspace, *, now: datetime | None = None) -> list[str]:
    """The start-up clean-up: delete uploads no chat has used for the retention period (except
    the current chat's PDF, which its providers are about to send). Returns one line per provider
    that refused; never raises (a broken archive or a failing provider waits for the next start).
    """
    try:
        registry = UploadRegistry(workspace.archive)
        cutoff = (now or utc_now()) - timedelta(days=workspace.settings.upload_retention_days)
        stale = await asyncio.to_thread(registry.unused_since, cutoff)
        if not stale:
            return []
        current = workspace.session.pdf_path
        keep = await asyncio.to_thread(_digests, [current] if current else [])
        stale = [upload for upload in stale if upload.sha256 not in keep]

        def still_unused(upload: StoredUpload) -> bool:
            latest = registry.get(upload.provider, upload.file_id)
            return latest is not None and latest.last_used_at < cutoff

        report = await delete_uploads(stale, workspace.providers, registry, still_wanted=still_unused)
    except (sqlite3.Error, OSError) as exc:
        log.warning("upload clean-up skipped: %s", exc)
        return []
    if report.deleted or report.gone:
        log.info("upload clean-up: %d deleted, %d already gone", len(report.deleted), len(report.gone))
    return report.refusal_lines()


async def prune_unused_uploads(workspace: Workspace) -> CleanupReport:
    """Delete every upload whose PDF no chat has selected now (`ensemble-tui files --prune`)."""
    registry = UploadRegistry(workspace.archive)
    in_use = await asyncio.to_thread(pdf_digests_in_use, workspace)
    uploads = await asyncio.to_thread(registry.all)
    unused = [upload for upload in uploads if upload.sha256 not in in_use]
    return await delete_uploads(unused, workspace.providers, registry)


async def free_uploads_of(workspace: Workspace, pdf: str) -> CleanupReport:
    """After a chat was deleted: delete the uploads of its PDF unless another chat still uses it."""
    registry = UploadRegistry(workspace.archive)
    mine = await asyncio.to_thread(_digests, [pdf] if pdf else [])
    in_use = await asyncio.to_thread(pdf_digests_in_use, workspace)
    freed = mine - in_use
    if not freed:
        return CleanupReport()
    uploads = await asyncio.to_thread(registry.all)
    return await delete_uploads([u for u in uploads if u.sha256 in freed], workspace.providers, registry)


def pdf_digests_in_use(workspace: Workspace) -> set[str]:
    """The content hashes of the PDFs chats have selected now (the current one and those in the
    history) and that still exist: an upload of any other content serves no chat."""
    paths = {workspace.session.pdf_path} if workspace.session.pdf_path else set()
    with workspace.archive.transaction() as db:
        for (data,) in db.execute("SELECT data FROM sessions"):
            try:
                pdf = json.loads(data).get("pdf_path")
            except (ValueError, AttributeError):
                continue
            if isinstance(pdf, str) and pdf:
                paths.add(pdf)
    return _digests(paths)


def _digests(paths: Iterable[str]) -> set[str]:
    found = set()
    for text in paths:
        try:
            found.add(file_sha256(Path(text)))
        except OSError:  # gone or unreadable: no chat can send it
            continue
    return found


async def alongside_clean_up(workspace: Workspace, turn: Awaitable[int], err: TextIO, *, wait_s: float = 5.0) -> int:
    """Run `turn` (the `ask` command's) with the start-up clean-up beside it; the clean-up's
    lines go to `err` after the turn. A clean-up still running `wait_s` after the turn is
    stopped: what it did not delete is tried again next time."""
    cleanup = asyncio.ensure_future(clean_up_uploads(workspace))
    try:
        code = await turn
    except BaseException:
        cleanup.cancel()
        raise
    try:
        lines = await asyncio.wait_for(cleanup, wait_s)
    except TimeoutError:
        lines = []
    for line in lines:
        print(f"ensemble-tui: {line}", file=err)
    return code
