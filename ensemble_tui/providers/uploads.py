"""One upload per provider per file content, started early and shared by every call.

The PDF is uploaded as soon as it is chosen (`prepare`), so the first question does not wait for
it; calls made meanwhile await the same upload instead of starting their own. Uploads are keyed
by the file's sha256, so choosing the same PDF again (or a copy of it) costs nothing, and an
edited file is uploaded afresh. A failed upload is forgotten so the next call tries again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from ensemble_tui.core.provider import ErrorKind, ProviderError

log = logging.getLogger(__name__)

Uploader = Callable[[Path], Awaitable[str]]
_CHUNK = 1024 * 1024


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class UploadCache:
    """File references of one provider, by content hash; `upload` returns the provider's ref."""

    def __init__(self, label: str, upload: Uploader) -> None:
        self.label = label
        self._upload = upload
        self._tasks: dict[str, asyncio.Task[str]] = {}
        self._digests: dict[tuple[str, int, int], str] = {}  # (path, size, mtime) -> sha256
        self._background: set[asyncio.Task[None]] = set()

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
            await self.file_ref(pdf)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a background upload must never raise; the next call retries
            message = exc.message if isinstance(exc, ProviderError) else type(exc).__name__
            log.info("%s: background upload of %s failed: %s", self.label, pdf.name, message)

    async def file_ref(self, pdf: Path) -> str:
        """The provider's reference for `pdf`, uploading it unless already done or under way."""
        digest = await self._digest(Path(pdf))
        loop = asyncio.get_running_loop()
        task = self._tasks.get(digest)
        if task is not None and task.done() and not _failed(task):
            return task.result()
        if task is None or _failed(task) or task.get_loop() is not loop:
            task = loop.create_task(self._upload(Path(pdf)))
            task.add_done_callback(_retrieve)
            self._tasks[digest] = task
        # shield: a cancelled call must not cancel an upload other calls may be waiting for
        return await asyncio.shield(task)

    def forget(self, file_ref: str) -> None:
        """Drop a reference the provider reported gone, so the next `file_ref` uploads again."""
        for digest, task in list(self._tasks.items()):
            if task.done() and not _failed(task) and task.result() == file_ref:
                del self._tasks[digest]

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


def _failed(task: asyncio.Task[str]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


def _retrieve(task: asyncio.Task[str]) -> None:
    """Mark a failed upload's exception as seen; whoever awaits it gets it anyway."""
    if not task.cancelled():
        task.exception()
