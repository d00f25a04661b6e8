"""One upload per provider per file content, started early, shared by every call, and kept.

The PDF is uploaded as soon as it is chosen (`prepare`), so the first question does not wait for
it; calls made meanwhile await the same upload instead of starting their own. Uploads are keyed
by the file's sha256, so choosing the same PDF again (or a copy of it) costs nothing, and an
edited file is uploaded afresh. A failed upload is forgotten so the next call tries again.

With an `UploadBook` (the archive's upload registry and the current chat), an upload outlives
the process: the next `ask`, the next start of the app, and any other chat that sends the same
PDF reuse it until its expiry (Gemini drops files after 48 hours; OpenAI uploads carry an
`expires_after`), and an upload the provider reports gone is struck off. At most one copy of a
PDF is kept at a provider: a fresh upload replaces (deletes) any older copy still there.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from ensemble_tui.core.provider import ErrorKind, ProviderError
from ensemble_tui.core.store.upload_registry import EXPIRY_MARGIN, StoredUpload, UploadRegistry, file_sha256, utc_now

log = logging.getLogger(__name__)

__all__ = ["RemoteFile", "UploadBook", "UploadCache", "Uploaded", "file_sha256"]

T = TypeVar("T")
# A chat's use of an upload is written to the registry at most this often (seconds).
USE_NOTE_INTERVAL_S = 600.0


@dataclass(frozen=True)
class Uploaded:
    """What an upload gave: the reference calls carry, the provider's own file id (what its
    list and delete take; None: the same as `ref`), and when the provider drops the file."""

    ref: str
    file_id: str | None = None
    expires_at: datetime | None = None

    @property
    def id(self) -> str:
        return self.file_id or self.ref


@dataclass(frozen=True)
class RemoteFile:
    """A file as the provider's list reports it."""

    file_id: str
    name: str
    size: int
    created_at: datetime | None = None
    expires_at: datetime | None = None


@dataclass(frozen=True)
class UploadBook:
    """Where uploads are kept between runs, and which chat is sending them now."""

    registry: UploadRegistry
    chat: Callable[[], str | None]


Uploader = Callable[[Path], Awaitable["str | Uploaded"]]
Deleter = Callable[[str], Awaitable[bool]]


class UploadCache:
    """File references of one provider, by content hash; `upload` returns the provider's ref.

    `book` keeps uploads between runs (see the module docstring); `delete` removes an older
    copy at the provider once a new one is up. Without them it behaves as before: one upload
    per process.
    """

    def __init__(
        self, label: str, upload: Uploader, *, book: UploadBook | None = None, delete: Deleter | None = None
    ) -> None:
        self.label = label
        self._upload = upload
        self.book = book
        self._delete = delete
        self._tasks: dict[str, asyncio.Task[Uploaded]] = {}
        self._digests: dict[tuple[str, int, int], str] = {}  # (path, size, mtime) -> sha256
        self._background: set[asyncio.Task[None]] = set()
        self._noted: dict[tuple[str, str], float] = {}  # (file id, chat) -> when its use was last written

    def keep_in(self, book: UploadBook | None, delete: Deleter | None = None) -> None:
        """Keep uploads in `book` from now on (None: in this process only)."""
        self.book = book
        self._delete = delete

    def prepare(self, pdf: Path) -> None:
        """Start uploading in the background; never raises.

        Without a running event loop there is nothing to run the upload on: the first call
        uploads instead.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self._prepare(Path(pdf)))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _prepare(self, pdf: Path) -> None:
        try:
            await self.file_ref(pdf, use=False)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a background upload must never raise; the next call retries
            message = exc.message if isinstance(exc, ProviderError) else type(exc).__name__
            log.info("%s: background upload of %s failed: %s", self.label, pdf.name, message)

    async def file_ref(self, pdf: Path, *, use: bool = True) -> str:
        """The provider's reference for `pdf`: a kept upload of the same content that is still
        valid, else a new upload (unless one is under way). `use`: a call will send it now, so
        the current chat's use is written down; an upload made ahead of need (`prepare`, e.g.
        for the chat restored at start that `ask --new` then leaves) does not count as one."""
        digest = await self._digest(Path(pdf))
        loop = asyncio.get_running_loop()
        task = self._tasks.get(digest)
        if task is not None and task.done() and not _failed(task) and _fresh(task.result()):
            uploaded = task.result()
        else:
            if task is None or task.done() or task.get_loop() is not loop:
                task = loop.create_task(self._obtain(Path(pdf), digest))
                task.add_done_callback(_retrieve)
                self._tasks[digest] = task
            # shield: a cancelled call must not cancel an upload other calls may be waiting for
            uploaded = await asyncio.shield(task)
        if use:
            await self._note_use(uploaded)
        return uploaded.ref

    async def forget(self, file_ref: str) -> None:
        """Drop a reference the provider reported gone, so the next `file_ref` uploads again
        (or takes a newer copy another run made)."""
        for digest, task in list(self._tasks.items()):
            if task.done() and not _failed(task) and task.result().ref == file_ref:
                del self._tasks[digest]
        if self.book is not None:
            await self._registry(self.book.registry.remove_ref, self.label, file_ref)

    async def _obtain(self, pdf: Path, digest: str) -> Uploaded:
        """A kept upload of this content, else a fresh one, recorded."""
        if self.book is not None:
            stored = await self._registry(self.book.registry.find, self.label, digest)
            if stored is not None:
                log.info("%s: reusing upload %s of %s", self.label, stored.file_id, pdf.name)
                return Uploaded(stored.ref, stored.file_id, stored.expires_at)
        result = await self._upload(pdf)
        uploaded = result if isinstance(result, Uploaded) else Uploaded(result)
        if self.book is not None:
            await self._record(pdf, digest, uploaded)
        return uploaded

    async def _record(self, pdf: Path, digest: str, uploaded: Uploaded) -> None:
        """Keep the new upload, and replace any older copy of the same content."""
        assert self.book is not None
        try:
            size = (await asyncio.to_thread(pdf.stat)).st_size
        except OSError:
            size = 0
        now = utc_now()
        chat = self.book.chat()
        stored = StoredUpload(self.label, uploaded.id, uploaded.ref, digest, size, pdf.name, now, uploaded.expires_at)
        await self._registry(self.book.registry.add, stored, chat)
        if chat:
            self._noted[(uploaded.id, chat)] = time.monotonic()
        older = await self._registry(self.book.registry.copies, self.label, digest) or []
        for copy in older:
            if copy.file_id != uploaded.id:
                self._spawn(self._replace(copy))

    async def _replace(self, copy: StoredUpload) -> None:
        """Delete an older copy at the provider (unless it expired already) and strike it off."""
        assert self.book is not None
        if self._delete is not None and not copy.expired_at(utc_now()):
            try:
                await self._delete(copy.file_id)
            except ProviderError as exc:  # kept on the list: the clean-up tries again later
                log.info("%s: could not delete the older copy %s: %s", self.label, copy.file_id, exc.message)
                return
        await self._registry(self.book.registry.remove, self.label, copy.file_id)

    async def _note_use(self, uploaded: Uploaded) -> None:
        """Write down that the current chat sent this upload (at most every few minutes)."""
        if self.book is None:
            return
        chat = self.book.chat()
        if not chat:
            return
        key = (uploaded.id, chat)
        last = self._noted.get(key)
        if last is not None and time.monotonic() - last < USE_NOTE_INTERVAL_S:
            return
        self._noted[key] = time.monotonic()
        await self._registry(self.book.registry.used, self.label, uploaded.id, chat)

    async def _registry(self, method: Callable[..., T], *args: object) -> T | None:
        """Run a registry call off the loop; a registry that cannot be used never stops a call
        (the upload then lasts for this run only)."""
        try:
            return await asyncio.to_thread(method, *args)
        except (sqlite3.Error, OSError) as exc:
            log.warning("%s: the upload registry is unusable (%s)", self.label, exc)
            return None

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _digest(self, pdf: Path) -> str:
        try:
            stat = await asyncio.to_thread(pdf.stat)
            key = (str(pdf.resolve()), stat.st_size, stat.st_mtime_ns)
            digest = self._digests.get(key)
            if digest is None:
                digest = await asyncio.to_thread(file_sha256, pdf)
                self._digests[key] = digest
            return digest
        except OSError as exc:
            raise ProviderError(
                ErrorKind.FATAL,
                f"{self.label}: cannot read the PDF {pdf.name} ({exc.strerror or type(exc).__name__})"
                " - select it again in Attachments",
            ) from None

    async def aclose(self) -> None:
        """Cancel uploads still running (tests and shutdown)."""
        tasks = [*self._background, *(task for task in self._tasks.values() if not task.done())]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _failed(task: asyncio.Task[Uploaded]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


def _fresh(uploaded: Uploaded) -> bool:
    """Not expired (nor about to be) by now: a process may run for longer than Gemini keeps a file."""
    return uploaded.expires_at is None or uploaded.expires_at - EXPIRY_MARGIN > utc_now()


def _retrieve(task: asyncio.Task[Uploaded]) -> None:
    """Mark a failed upload's exception as seen; whoever awaits it gets it anyway."""
    if not task.cancelled():
        task.exception()
