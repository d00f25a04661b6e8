"""What a test (or the demo) tells the simulator to play, and what the simulator records.

The simulator never decides anything a test asserts as provider logic: it plays these scripted
replies and faults in order, renders them in each API's own shapes, and records every request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

FaultKind = Literal[
    "server_error",  # 500
    "unavailable",  # 503
    "rate_limit",  # 429, with Retry-After (Gemini: RetryInfo) when `retry_after` is set
    "overloaded",  # Anthropic 529 overloaded_error; OpenAI / Gemini answer 503 "overloaded"
    "bad_key",  # 401 (Gemini: 400 API_KEY_INVALID, as the real API does)
    "unknown_model",  # 404 naming the model
    "bad_request",  # 400 with `message`
    "file_gone",  # the provider's own "file not found" error for the referenced file
    "hang",  # accept the request, then say nothing until the client gives up
    "drop",  # send the headers and half the body, then close the connection
    "reset",  # read the request, then close the connection without a byte of reply (a server that died)
    "malformed",  # 200 with a JSON content type and a complete body that is truncated JSON
    "refusal",  # 200: the model declines, in the API's own shape (each API module's `stopped`)
    "blocked",  # 200: a content-filter stop, in the API's own shape (each API module's `stopped`)
]


@dataclass(frozen=True)
class Citation:
    url: str
    title: str = ""


@dataclass(frozen=True)
class ScriptedReply:
    """One successful model reply.

    `usage` is the provider's own usage object (OpenAI `usage`, Anthropic `usage`, Gemini
    `usageMetadata`, with the API's field names); given keys replace the defaults, so tests can
    assert how an adapter reads exact native numbers. `stop_reason` is Anthropic's (e.g.
    "pause_turn"). `match` / `unless`: the reply only answers requests whose text contains /
    does not contain the string. When the request searches: `searches` are the queries the model
    runs (default: one, the question's start), and `before_search` is text Claude writes before
    its first search (a text block ahead of the search blocks, as real replies often have).
    """

    text: str
    citations: tuple[Citation | str, ...] = ()
    usage: Mapping[str, Any] | None = None
    latency_s: float = 0.0
    stop_reason: str | None = None
    match: str | None = None
    unless: str | None = None
    searches: tuple[str, ...] = ()
    before_search: str = ""


@dataclass(frozen=True)
class Fault:
    """One failed model call or upload. `message` replaces the API's error text (for "refusal",
    the model's refusal text)."""

    kind: FaultKind
    retry_after: float | None = None
    message: str | None = None
    latency_s: float = 0.0
    hang_s: float = 60.0  # "hang": how long to stay silent at most (the server's stop ends it too)
    match: str | None = None
    unless: str | None = None


@dataclass(frozen=True)
class RecordedBody:
    """A reply body recorded from the real API (another project's test cassette, say), served
    byte for byte as the answer to one model call, so an adapter meets the real shape and not
    the simulator's rendering of it."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    latency_s: float = 0.0
    match: str | None = None
    unless: str | None = None

    @classmethod
    def from_file(cls, path: Path, **options: Any) -> RecordedBody:
        return cls(path.read_bytes(), **options)


ScriptItem = ScriptedReply | Fault | RecordedBody


@dataclass(frozen=True)
class InlineFile:
    """A file sent inside a Chat Completions message (OpenRouter's `file` part), decoded."""

    filename: str
    mime_type: str
    size: int
    sha256: str


@dataclass
class RecordedRequest:
    """One request as the simulator received it. Header names are lower-case."""

    provider: str  # "openai" | "anthropic" | "gemini", or the name of a simulated Chat Completions provider
    endpoint: str  # "upload" | "upload_chunk" | "file_get" | "file_list" | "file_delete" | "generate" | "unknown"
    method: str
    path: str  # after the provider prefix, without the query
    query: dict[str, str]
    headers: dict[str, str]
    body: Any = None  # parsed JSON, or None
    multipart: dict[str, Any] | None = None  # {"fields": {...}, "files": {name: {...}}}
    raw_size: int = 0
    text: str = ""  # every string in the JSON body, one per line (what `match` looks at)
    last_user_text: str = ""  # the text of the last user turn of a model call
    file_ids: tuple[str, ...] = ()  # files a model call references
    inline_files: tuple[InlineFile, ...] = ()  # files a Chat Completions call carries in its messages


Responder = Callable[[RecordedRequest], ScriptItem]


def json_strings(value: Any) -> list[str]:
    """Every string inside a JSON value, depth first."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in json_strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in json_strings(item)]
    return []


def applies(item: ScriptItem, text: str) -> bool:
    if item.match is not None and item.match not in text:
        return False
    return not (item.unless is not None and item.unless in text)


@dataclass
class SimFile:
    id: str
    filename: str
    mime_type: str
    size: int
    sha256: str
    polls_left: int = 0  # Gemini: `files.get` answers PROCESSING this many more times
    purpose: str = ""  # OpenAI's `purpose`
    created_at: float = field(default_factory=time.time)  # epoch seconds
    expires_at: float | None = None  # epoch seconds; the file is gone from then on

    def expired(self, now: float | None = None) -> bool:
        return self.expires_at is not None and self.expires_at <= (time.time() if now is None else now)


@dataclass
class ProviderScript:
    """The script and records of one provider. Thread-safe: the server reads it from its
    handler threads while the test pushes to it."""

    name: str
    default: ScriptedReply | RecordedBody | Responder = field(default_factory=lambda: ScriptedReply("Simulated reply."))
    processing_polls: int = 0  # Gemini: PROCESSING answers before a new upload is ACTIVE
    upload_latency_s: float = 0.0
    unknown_models: set[str] = field(default_factory=set)
    _queue: list[ScriptItem] = field(default_factory=list)
    _upload_faults: list[Fault] = field(default_factory=list)
    _delete_faults: list[Fault] = field(default_factory=list)
    _requests: list[RecordedRequest] = field(default_factory=list)
    files: dict[str, SimFile] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def push(self, *items: ScriptItem) -> ProviderScript:
        """Queue replies or faults for model calls, played in order (subject to `match`)."""
        with self._lock:
            self._queue.extend(items)
        return self

    def push_upload(self, *faults: Fault) -> ProviderScript:
        """Queue faults for the next file uploads (uploads succeed otherwise)."""
        with self._lock:
            self._upload_faults.extend(faults)
        return self

    def push_delete(self, *faults: Fault) -> ProviderScript:
        """Queue faults for the next file deletes (deletes succeed otherwise)."""
        with self._lock:
            self._delete_faults.extend(faults)
        return self

    def expire_files(self) -> None:
        """Forget every uploaded file, as the provider does when files expire."""
        with self._lock:
            self.files.clear()

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()
            self._upload_faults.clear()
            self._delete_faults.clear()
            self._requests.clear()

    @property
    def pending(self) -> list[ScriptItem]:
        with self._lock:
            return list(self._queue)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def calls(self) -> list[RecordedRequest]:
        """Model calls (Responses / Messages / generateContent / chat completions)."""
        return [request for request in self.requests if request.endpoint == "generate"]

    @property
    def uploads(self) -> list[RecordedRequest]:
        """File uploads (for Gemini, the resumable upload's start request)."""
        return [request for request in self.requests if request.endpoint == "upload"]

    @property
    def deletes(self) -> list[RecordedRequest]:
        """File deletes (`DELETE .../files/{id}`)."""
        return [request for request in self.requests if request.endpoint == "file_delete"]

    @property
    def stored(self) -> list[SimFile]:
        """The files the provider holds now, oldest first (expired ones are gone)."""
        with self._lock:
            return sorted((f for f in self.files.values() if not f.expired()), key=lambda f: f.created_at)

    # ----- used by the server -------------------------------------------------------------------

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def next_item(self, request: RecordedRequest) -> ScriptItem:
        with self._lock:
            for index, item in enumerate(self._queue):
                if applies(item, request.text):
                    return self._queue.pop(index)
            default = self.default
        return default if isinstance(default, (ScriptedReply, Fault, RecordedBody)) else default(request)

    def next_upload_fault(self) -> Fault | None:
        with self._lock:
            return self._upload_faults.pop(0) if self._upload_faults else None

    def next_delete_fault(self) -> Fault | None:
        with self._lock:
            return self._delete_faults.pop(0) if self._delete_faults else None

    def remove_file(self, file_id: str) -> SimFile | None:
        """Delete a file; None if the provider does not hold it (or it expired)."""
        with self._lock:
            file = self.files.pop(file_id, None)
        return None if file is None or file.expired() else file

    def add_file(self, file: SimFile) -> None:
        with self._lock:
            self.files[file.id] = file

    def file(self, file_id: str) -> SimFile | None:
        """A file the provider holds now (None once it expired)."""
        with self._lock:
            file = self.files.get(file_id)
        return None if file is None or file.expired() else file
