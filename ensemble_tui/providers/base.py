"""What the three adapters share: the upload cache, the file-gone retry, and error context.

Adapters whose uploads are files the provider keeps (`keeps_files`) also list and delete them
(`list_files`, `delete_file`), for the clean-up and `ensemble-tui files`.

A subclass says how to upload a PDF (`_upload_pdf`) and how to make one call with a file
reference (`_call`); both raise `ProviderError` (or `FileGone` when the provider no longer
knows the file). `complete` then re-uploads a vanished file and retries exactly once, silently:
Gemini deletes files after 48 hours, and the user should never have to care.
"""

from __future__ import annotations

import functools
import importlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Self

from ensemble_tui.core.provider import CallRequest, ErrorKind, Message, ProviderError, Reply
from ensemble_tui.providers.credentials import Credentials
from ensemble_tui.providers.errors import CallContext, FileGone
from ensemble_tui.providers.io_loop import call_soon, on_io_loop
from ensemble_tui.providers.model_builds import build_with_parts
from ensemble_tui.providers.uploads import RemoteFile, UploadCache, Uploaded

if TYPE_CHECKING:
    from ensemble_tui.core.config import ProviderConfig

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 180.0
FILE_OP_TIMEOUT_S = 30.0  # listing or deleting files: small requests
UPLOAD_TIMEOUT_S = 300.0  # a large PDF on a slow link; uploads run in the background anyway
PDF_MIME = "application/pdf"


class SdkProvider:
    """Base of the SDK adapters; implements the core `Provider` protocol."""

    base_url_env: ClassVar[str | None]  # the variable the SDK itself reads, e.g. OPENAI_BASE_URL
    # One line the engine may show in this model's pane when a PDF is attached, saying how the
    # PDF reached the model when that is not the obvious way (e.g. as extracted text). None: nothing
    # to say. Read it with `getattr(provider, "pdf_note", None)`: it is not part of the protocol.
    pdf_note: str | None = None
    # Whether an upload is a file the provider keeps in the user's storage (to be reused across
    # runs, listed and deleted), rather than content built locally (the Chat Completions adapter).
    keeps_files: ClassVar[bool] = False
    # How long uploads are kept unused before the clean-up deletes them (Settings); adapters whose
    # API takes an expiry at upload (OpenAI's `expires_after`) set it from this.
    retention_s: float = 7 * 86_400.0
    # The client's attributes a call or an upload reaches, loaded by `warm_up` ahead of them.
    warm_paths: ClassVar[tuple[str, ...]] = ()
    # The SDK's public pydantic models a call builds or reads ("module.Name"). The SDKs defer
    # building them to their first use (pydantic's `defer_build`), which then falls on the first
    # turn: ~0.1 s of CPU (0.5 s of wall time on a busy machine for google-genai's `Tool` alone),
    # and ~0.2 s more to read the first reply (its fields' models: providers/model_builds.py).
    # `warm_up` builds them and the models they hold ahead of it, with pydantic's `model_rebuild`.
    warm_models: ClassVar[tuple[str, ...]] = ()
    # Where the API is when neither the environment nor a configuration file says otherwise.
    default_base_url: ClassVar[str | None] = None
    _client_instance: Any = None

    def __init__(self, label: str, credentials: Credentials, *, upload_timeout_s: float = UPLOAD_TIMEOUT_S) -> None:
        self.label = label
        self.credentials = credentials
        self.upload_timeout_s = upload_timeout_s
        self.uploads = UploadCache(label, self._upload)

    @classmethod
    def from_config(cls, label: str, credentials: Credentials, config: ProviderConfig) -> Self:
        """The adapter for one configuration file; adapters that need more of it override this."""
        return cls(label, credentials)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(label={self.label!r}, base_url={self.credentials.base_url!r})"

    @property
    def base_url(self) -> str | None:
        return self.credentials.base_url or self.default_base_url

    def context(self, model: str | None = None) -> CallContext:
        return CallContext(self.label, self.credentials.key_var, self.credentials.key, model)

    # ----- the Provider protocol ---------------------------------------------------------------

    def prepare(self, pdf: Path) -> None:
        call_soon(self.uploads.prepare, pdf)

    async def complete(self, request: CallRequest) -> Reply:
        return await on_io_loop(self._complete(request))

    async def _complete(self, request: CallRequest) -> Reply:
        file_ref = await self.uploads.file_ref(request.pdf) if request.pdf is not None else None
        try:
            return await self._call(request, file_ref)
        except FileGone:
            assert file_ref is not None and request.pdf is not None
            log.info("%s: the uploaded PDF is gone; uploading it again", self.label)
            await self.uploads.forget(file_ref)
        file_ref = await self.uploads.file_ref(request.pdf)
        try:
            return await self._call(request, file_ref)
        except FileGone:
            await self.uploads.forget(file_ref)
            raise ProviderError(
                ErrorKind.TRANSIENT, f"{self.label}: the uploaded PDF was reported missing twice - will upload again"
            ) from None

    async def aclose(self) -> None:
        """Stop background uploads and close the SDK client (tests, shutdown)."""
        await on_io_loop(self._aclose())

    async def _aclose(self) -> None:
        await self.uploads.aclose()
        await self._close_client()

    async def warm_up(self) -> None:
        """Import the SDK, build the client and the SDK models a call uses (`warm_models`) now,
        on the provider loop, without a request: the first call otherwise pays for the import (up
        to a second for anthropic or google-genai) and the models' builds. All in one go, with no
        await: warm-ups queued together (`ask`: core/turn/warm_up.py's `warm_up_all`) run back
        to back, ahead of any call queued meanwhile, so the first calls' requests leave together;
        queued one at a time (the app: `warm_up_each`), a call queued meanwhile goes next."""
        await on_io_loop(self._warm_up())

    async def _warm_up(self) -> None:
        client = self._client()
        for path in self.warm_paths:  # the SDKs import these resources' modules on first access
            functools.reduce(getattr, path.split("."), client)
        for dotted in self.warm_models:
            module, _, name = dotted.rpartition(".")
            build_with_parts(getattr(importlib.import_module(module), name))

    async def delete_file(self, file_id: str) -> bool:
        """Delete an upload at the provider: True if deleted, False if it was gone already.
        Raises ProviderError when the provider refuses. Only for adapters that keep files."""
        return await on_io_loop(self._delete_file(file_id))

    async def list_files(self) -> list[RemoteFile]:
        """The PDFs the provider holds for this key (what the app could have uploaded)."""
        return await on_io_loop(self._list_files())

    async def _upload(self, pdf: Path) -> str | Uploaded:
        try:
            return await self._upload_pdf(pdf)
        except OSError as exc:  # the file vanished or became unreadable between the hash and the upload
            raise ProviderError(
                ErrorKind.FATAL,
                f"{self.label}: cannot read the PDF {pdf.name} ({exc.strerror or type(exc).__name__})"
                " - select it again in Attachments",
            ) from None

    # ----- for subclasses -------------------------------------------------------------------------

    async def _upload_pdf(self, pdf: Path) -> str | Uploaded:
        raise NotImplementedError

    async def _delete_file(self, file_id: str) -> bool:
        raise NotImplementedError(f"{type(self).__name__} keeps no files")

    async def _list_files(self) -> list[RemoteFile]:
        raise NotImplementedError(f"{type(self).__name__} keeps no files")

    async def _call(self, request: CallRequest, file_ref: str | None) -> Reply:
        raise NotImplementedError

    def _client(self) -> Any:
        """The SDK client, built on first use: the SDK is imported only when a call needs it."""
        if self._client_instance is None:
            self._client_instance = self._make_client()
        return self._client_instance

    def _make_client(self) -> Any:
        raise NotImplementedError

    async def _close_client(self) -> None:
        if self._client_instance is not None:
            await self._client_instance.close()


def first_user_index(messages: tuple[Message, ...]) -> int | None:
    """Where the PDF goes: the first user turn.

    The first turn never changes during a chat, so the PDF sits in the same place in every
    request; the prompt prefix up to and including it is then identical across turns and
    passes, which is what every provider's prompt cache keys on. Putting it in the last turn
    would move it each turn and re-bill it uncached each time.
    """
    for index, turn in enumerate(messages):
        if turn.role == "user":
            return index
    return None


def turn_text(turn: Message) -> str:
    """APIs reject empty text blocks; a blank turn (should not happen) gets a placeholder."""
    return turn.text if turn.text.strip() else "(empty)"


def dedupe(urls: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(url for url in urls if url))
