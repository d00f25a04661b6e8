"""The Gemini endpoints the adapter uses: resumable upload, `files.get`, `files.list`,
`files.delete`, `generateContent`.

Upload follows Google's resumable protocol: a start request (`X-Goog-Upload-Command: start`)
answered with an `x-goog-upload-url` header, then the bytes (`upload, finalize`) answered with
`x-goog-upload-status: final` and `{"file": {...}}`. A file may be PROCESSING for a few
`files.get` polls. Replies carry `candidates[].groundingMetadata` when Google Search is on, and
`usageMetadata`. Files expire 48 hours after upload (`expirationTime`); `files.list` answers
`{"files": [...], "nextPageToken"}` pages of `pageSize`, `files.delete` an empty object.
Errors are `{"error": {"code", "message", "status", "details"}}`. Both `v1` and `v1beta`
paths are served.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from ensemble_tui.simulator.addresses import GEMINI_PREFIX
from ensemble_tui.simulator.script import ProviderScript, RecordedRequest, ScriptedReply, SimFile
from ensemble_tui.simulator.wire import (
    HttpReply,
    citation,
    default_input_tokens,
    estimate_tokens,
    merged,
    sha256,
    token,
    within_limit,
)

NAME = "gemini"
PREFIX = GEMINI_PREFIX
_GENERATE = re.compile(r"^/(v1|v1beta)/models/([^/:]+):generateContent$")
_FILE = re.compile(r"^/(v1|v1beta)/files/([a-z0-9-]+)$")
_UPLOAD = re.compile(r"^/upload/(v1|v1beta)/files$")
_FILES = re.compile(r"^/(v1|v1beta)/files$")
EXPIRY_S = 48 * 3600  # the Files API keeps a file this long
_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"


def endpoint(method: str, path: str, query: dict[str, str]) -> str:
    if method == "POST" and _UPLOAD.match(path):
        return "upload_chunk" if "upload_id" in query else "upload"
    if method == "GET" and _FILE.match(path):
        return "file_get"
    if method == "GET" and _FILES.match(path):
        return "file_list"
    if method == "DELETE" and _FILE.match(path):
        return "file_delete"
    if method == "POST" and _GENERATE.match(path):
        return "generate"
    return "unknown"


def parse(request: RecordedRequest) -> None:
    body = request.body if isinstance(request.body, dict) else {}
    files: list[str] = []
    for content in body.get("contents") or ():
        texts = []
        for part in content.get("parts") or ():
            # google-genai sends snake_case inside some messages; the API accepts both spellings
            data = part.get("fileData") or part.get("file_data") or {}
            uri = data.get("fileUri") or data.get("file_uri")
            if uri:
                files.append(uri.rstrip("/").rsplit("/", 1)[-1])
            if "text" in part:
                texts.append(part["text"])
        if content.get("role", "user") == "user":
            request.last_user_text = "\n".join(texts)
    request.file_ids = tuple(files)


def authorized(request: RecordedRequest) -> bool:
    if request.endpoint == "upload_chunk":
        return True  # the upload URL itself is the credential, as with Google's
    return bool(request.headers.get("x-goog-api-key") or request.query.get("key"))


def model_of(request: RecordedRequest) -> str:
    found = _GENERATE.match(request.path)
    return found.group(2) if found else ""


def _file_json(base_url: str, version: str, file: SimFile, state: str) -> dict[str, Any]:
    created = _stamp(file.created_at)
    expires = file.expires_at if file.expires_at is not None else file.created_at + EXPIRY_S
    return {
        "name": f"files/{file.id}",
        "displayName": file.filename,
        "mimeType": file.mime_type,
        "sizeBytes": str(file.size),
        "createTime": created,
        "updateTime": created,
        "expirationTime": _stamp(expires),
        "sha256Hash": file.sha256,
        "uri": f"{base_url}/{version}/files/{file.id}",
        "state": state,
        "source": "UPLOADED",
    }


def _stamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def file_list(request: RecordedRequest, script: ProviderScript, base_url: str) -> HttpReply:
    """`files.list`: newest first, `pageSize` a page (default 10, at most 100), `pageToken` the
    offset of the next page."""
    version = _FILES.match(request.path).group(1)  # type: ignore[union-attr]
    size = min(100, int(request.query.get("pageSize") or 10))
    start = int(request.query.get("pageToken") or 0)
    files = list(reversed(script.stored))
    page = files[start : start + size]
    payload: dict[str, Any] = {"files": [_file_json(base_url, version, f, "ACTIVE") for f in page]}
    if start + size < len(files):
        payload["nextPageToken"] = str(start + size)
    return HttpReply.json(200, payload)


def file_delete(request: RecordedRequest, script: ProviderScript) -> HttpReply:
    """`files.delete`: an empty object; a file it does not hold is 403, as for calls."""
    file_id = _FILE.match(request.path).group(2)  # type: ignore[union-attr]
    if script.remove_file(file_id) is None:
        return error("file_gone", request, file_id=f"files/{file_id}")
    return HttpReply.json(200, {})


class Uploads:
    """Upload sessions in progress: upload id -> (version, metadata, bytes received)."""

    def __init__(self) -> None:
        self.sessions: dict[str, tuple[str, dict[str, Any], bytearray]] = {}

    def start(self, request: RecordedRequest, base_url: str) -> HttpReply:
        version = _UPLOAD.match(request.path).group(1)  # type: ignore[union-attr]
        upload_id = "ADPycd" + token(40)
        sent = dict((request.body or {}).get("file") or {})
        metadata = {
            "displayName": sent.get("displayName") or sent.get("display_name") or "upload",
            "mimeType": sent.get("mimeType")
            or sent.get("mime_type")
            or request.headers.get("x-goog-upload-header-content-type", "application/octet-stream"),
        }
        self.sessions[upload_id] = (version, metadata, bytearray())
        url = f"{base_url}/upload/{version}/files?upload_id={upload_id}&upload_protocol=resumable"
        return HttpReply(
            200,
            b"",
            {
                "x-goog-upload-status": "active",
                "x-goog-upload-url": url,
                "x-goog-upload-control-url": url,
                "x-goog-upload-chunk-granularity": "8388608",
                "content-type": "text/plain; charset=utf-8",
            },
        )

    def chunk(self, request: RecordedRequest, data: bytes, script: ProviderScript, base_url: str) -> HttpReply:
        upload_id = request.query.get("upload_id", "")
        if upload_id not in self.sessions:
            return HttpReply(404, b"Upload session not found", {"x-goog-upload-status": "final"})
        version, metadata, received = self.sessions[upload_id]
        received.extend(data)
        command = request.headers.get("x-goog-upload-command", "")
        if "finalize" not in command:
            return HttpReply(200, b"", {"x-goog-upload-status": "active"})
        del self.sessions[upload_id]
        file = SimFile(
            id=token(12, _LOWER),
            filename=str(metadata.get("displayName", "upload")),
            mime_type=str(metadata.get("mimeType", "application/pdf")),
            size=len(received),
            sha256=sha256(bytes(received)),
            polls_left=script.processing_polls,
        )
        file.expires_at = file.created_at + EXPIRY_S
        script.add_file(file)
        state = "PROCESSING" if file.polls_left > 0 else "ACTIVE"
        return HttpReply.json(
            200, {"file": _file_json(base_url, version, file, state)}, {"x-goog-upload-status": "final"}
        )


def file_get(request: RecordedRequest, script: ProviderScript, base_url: str) -> HttpReply:
    found = _FILE.match(request.path)
    version, file_id = found.group(1), found.group(2)  # type: ignore[union-attr]
    file = script.file(file_id)
    if file is None:
        return error("file_gone", request, file_id=file_id)
    state = "ACTIVE"
    if file.polls_left > 0:
        file.polls_left -= 1
        state = "PROCESSING"
    return HttpReply.json(200, _file_json(base_url, version, file, state))


def render(request: RecordedRequest, reply: ScriptedReply) -> HttpReply:
    body = request.body or {}
    limit = (body.get("generationConfig") or {}).get("maxOutputTokens")
    reply, cut = within_limit(reply, limit, "candidatesTokenCount")
    searching = any("googleSearch" in tool or "google_search" in tool for tool in body.get("tools") or [])
    cited = [citation(item) for item in reply.citations] if searching else []
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": reply.text}]},
        "finishReason": "MAX_TOKENS" if cut else "STOP",
        "index": 0,
    }
    if searching:
        candidate["groundingMetadata"] = {
            "webSearchQueries": list(reply.searches or (request.last_user_text[:80],)),
            "searchEntryPoint": {"renderedContent": '<div class="container">simulated search chip</div>'},
            "groundingChunks": [{"web": {"uri": c.url, "title": c.title}} for c in cited],
            "groundingSupports": [
                {
                    "segment": {"startIndex": 0, "endIndex": len(reply.text.encode()), "text": reply.text},
                    "groundingChunkIndices": list(range(len(cited))),
                }
            ]
            if cited
            else [],
        }
    prompt = default_input_tokens(request)
    output = estimate_tokens(reply.text)
    usage = merged(
        {
            "promptTokenCount": prompt,
            "candidatesTokenCount": output,
            "totalTokenCount": prompt + output,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
        },
        reply.usage,
    )
    return HttpReply.json(
        200,
        {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": model_of(request),
            "responseId": token(22),
        },
    )


def stopped(kind: str, request: RecordedRequest, *, message: str | None = None) -> HttpReply:
    """A withheld answer. "refusal": the reply was blocked, a candidate with finishReason SAFETY,
    its safety ratings and no content; "blocked": the prompt was blocked, `promptFeedback` with
    a `blockReason` and no candidates. Gemini has no refusal text of its own (`message` unused)."""
    ratings = [
        {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True},
        {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"},
    ]
    prompt = default_input_tokens(request)
    payload: dict[str, Any] = {
        "usageMetadata": {"promptTokenCount": prompt, "totalTokenCount": prompt},
        "modelVersion": model_of(request),
        "responseId": token(22),
    }
    if kind == "blocked":
        payload["promptFeedback"] = {"blockReason": "SAFETY", "safetyRatings": ratings}
    else:
        payload["candidates"] = [{"finishReason": "SAFETY", "index": 0, "safetyRatings": ratings}]
    return HttpReply.json(200, payload)


def error(
    kind: str,
    request: RecordedRequest,
    *,
    message: str | None = None,
    retry_after: float | None = None,
    file_id: str | None = None,
) -> HttpReply:
    model = model_of(request)
    version = (request.path.split("/") + ["", "v1"])[1] or "v1"
    details: list[dict[str, Any]] = []
    table: dict[str, tuple[int, str, str]] = {
        "server_error": (500, "INTERNAL", "An internal error has occurred. Please retry or report it."),
        "unavailable": (503, "UNAVAILABLE", "The service is currently unavailable."),
        "overloaded": (503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
        "rate_limit": (429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
        "bad_key": (400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."),
        "unknown_model": (
            404,
            "NOT_FOUND",
            f"models/{model} is not found for API version {version}, or is not supported for generateContent. "
            "Call ListModels to see the list of available models and their supported methods.",
        ),
        "bad_request": (400, "INVALID_ARGUMENT", "Request contains an invalid argument."),
        "file_gone": (
            403,
            "PERMISSION_DENIED",
            f"You do not have permission to access the File {file_id} or it may not exist.",
        ),
        "not_found": (404, "NOT_FOUND", "Requested entity was not found."),
    }
    status, code_name, text = table[kind]
    if kind == "bad_key":
        details.append(
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
            }
        )
    if kind == "rate_limit" and retry_after is not None:
        details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{retry_after:g}s"})
    payload: dict[str, Any] = {"error": {"code": status, "message": message or text, "status": code_name}}
    if details:
        payload["error"]["details"] = details
    return HttpReply.json(status, payload)
