"""The Anthropic endpoints the Claude adapter uses: the Files beta (`POST /v1/files`,
`GET /v1/files`, `DELETE /v1/files/{id}`) and `POST /v1/messages`.

Shapes follow the public API reference: file metadata for uploads; a list page (`data`,
`first_id`, `last_id`, `has_more`, and the `next_page` cursor the SDK reads); a deletion
(`{"id", "type": "file_deleted"}`); a Message whose `content` holds a `thinking` block when
thinking was asked for, then (when searching) an optional text block, a `server_tool_use` and
`web_search_tool_result` pair per search, and `text` blocks (the cited sentence with
`web_search_result_location` citations); `usage` with cache and server-tool counts; errors as
`{"type": "error", "error": {"type", "message"}, "request_id"}`, overloaded as 529.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from ensemble_tui.simulator.addresses import ANTHROPIC_PREFIX
from ensemble_tui.simulator.script import ProviderScript, RecordedRequest, ScriptedReply, SimFile
from ensemble_tui.simulator.wire import (
    HttpReply,
    citation,
    default_input_tokens,
    estimate_tokens,
    merged,
    split_cited,
    token,
    within_limit,
)

NAME = "anthropic"
PREFIX = ANTHROPIC_PREFIX


def endpoint(method: str, path: str) -> str:
    if method == "POST" and path == "/v1/files":
        return "upload"
    if method == "GET" and path == "/v1/files":
        return "file_list"
    if method == "DELETE" and path.startswith("/v1/files/"):
        return "file_delete"
    if method == "POST" and path == "/v1/messages":
        return "generate"
    return "unknown"


def parse(request: RecordedRequest) -> None:
    body = request.body if isinstance(request.body, dict) else {}
    files: list[str] = []
    for message in body.get("messages") or ():
        content = message.get("content")
        texts = [content] if isinstance(content, str) else []
        for block in content if isinstance(content, list) else ():
            source = block.get("source") or {}
            if block.get("type") == "document" and source.get("type") == "file":
                files.append(source.get("file_id", ""))
            if block.get("type") == "text":
                texts.append(block.get("text", ""))
        if message.get("role") == "user":
            request.last_user_text = "\n".join(texts)
    request.file_ids = tuple(files)


def authorized(request: RecordedRequest) -> bool:
    bearer = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
    return bool(bearer or request.headers.get("x-api-key"))


def model_of(request: RecordedRequest) -> str:
    return str((request.body or {}).get("model", ""))


def upload(request: RecordedRequest, script: ProviderScript, data: bytes, sha: str) -> HttpReply:
    upload_file = (request.multipart or {}).get("files", {}).get("file", {})
    filename = upload_file.get("filename", "upload")
    mime = upload_file.get("content_type") or "application/pdf"
    file = SimFile("file_011" + token(21), filename, mime, len(data), sha)
    script.add_file(file)
    return HttpReply.json(200, _metadata(file))


def _metadata(file: SimFile) -> dict[str, Any]:
    return {
        "id": file.id,
        "type": "file",
        "filename": file.filename,
        "mime_type": file.mime_type,
        "size_bytes": file.size,
        "created_at": _stamp(file.created_at),
        "downloadable": False,
    }


def _stamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def file_list(request: RecordedRequest, script: ProviderScript, base_url: str) -> HttpReply:
    """`GET /v1/files`, newest first; one page."""
    data = [_metadata(f) for f in reversed(script.stored)]
    return HttpReply.json(
        200,
        {
            "data": data,
            "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None,
            "has_more": False,
            "next_page": None,
        },
    )


def file_delete(request: RecordedRequest, script: ProviderScript) -> HttpReply:
    file_id = request.path.rsplit("/", 1)[-1]
    if script.remove_file(file_id) is None:
        return error("file_gone", request, file_id=file_id)
    return HttpReply.json(200, {"id": file_id, "type": "file_deleted"})


def render(request: RecordedRequest, reply: ScriptedReply) -> HttpReply:
    body = request.body or {}
    reply, cut = within_limit(reply, body.get("max_tokens"), "output_tokens")
    forced = forced_tool(body)
    if forced is not None and not cut:
        return _tool_reply(request, reply, forced)
    searching = any(str(tool.get("type", "")).startswith("web_search") for tool in body.get("tools") or [])
    cited = [citation(item) for item in reply.citations] if searching else []
    content: list[dict[str, Any]] = []
    thinking = (body.get("thinking") or {}).get("type") in ("enabled", "adaptive")
    if thinking:  # a thinking block comes first; the adapter must keep it out of the reply
        content.append({"type": "thinking", "thinking": "(simulated reasoning)", "signature": token(48)})
    queries = (reply.searches or (request.last_user_text[:80],)) if searching else ()
    uses = [int(tool["max_uses"]) for tool in body.get("tools") or [] if tool.get("max_uses") is not None]
    queries = queries[: min(uses)] if uses else queries  # as the API does: `max_uses` caps the searches
    if queries and reply.before_search:
        content.append({"type": "text", "text": reply.before_search, "citations": None})
    for query in queries:  # one search after another, each result right after its call
        tool_id = "srvtoolu_01" + token(22)
        content.append({"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": query}})
        results = [
            {
                "type": "web_search_result",
                "url": c.url,
                "title": c.title,
                "encrypted_content": token(64),
                "page_age": None,
            }
            for c in cited
        ]
        content.append({"type": "web_search_tool_result", "tool_use_id": tool_id, "content": results})
    head, tail = split_cited(reply.text) if cited else ("", reply.text)
    if head:
        content.append({"type": "text", "text": head, "citations": None})
    citations = [
        {
            "type": "web_search_result_location",
            "url": c.url,
            "title": c.title,
            "encrypted_index": token(40),
            "cited_text": tail.strip()[:150],
        }
        for c in cited
    ]
    content.append({"type": "text", "text": tail, "citations": citations or None})
    usage = _usage(request, estimate_tokens(reply.before_search + reply.text), len(queries), reply.usage)
    return _message(request, content, "max_tokens" if cut else reply.stop_reason or "end_turn", usage)


def forced_tool(body: dict[str, Any]) -> str | None:
    """The tool a request forces (`tool_choice` of type "tool", naming one of its tools): the
    app's structured output. None for an ordinary request."""
    choice = body.get("tool_choice") or {}
    name = choice.get("name") if choice.get("type") == "tool" else None
    tools = {tool.get("name") for tool in body.get("tools") or [] if "input_schema" in tool}
    return name if name in tools else None


def _tool_reply(request: RecordedRequest, reply: ScriptedReply, name: str) -> HttpReply:
    """A forced tool's call as the API returns it: one `tool_use` block whose `input` is the
    scripted JSON object (a scripted text that is not one is wrapped as `{"text": ...}`, an
    object of the wrong shape, as a model filling the schema badly gives), stop `tool_use`."""
    try:
        given = json.loads(reply.text)
    except ValueError:
        given = None
    arguments = given if isinstance(given, dict) else {"text": reply.text}
    content = [{"type": "tool_use", "id": "toolu_01" + token(22), "name": name, "input": arguments}]
    usage = _usage(request, estimate_tokens(reply.text), 0, reply.usage)
    return _message(request, content, "tool_use", usage)


def stopped(kind: str, request: RecordedRequest, *, message: str | None = None) -> HttpReply:
    """A withheld answer: `stop_reason: "refusal"` with `stop_details`, as the streaming
    classifiers stop a reply. "refusal" keeps the partial text written before the stop (the API
    adds no refusal message of its own); "blocked" stops before any text."""
    partial = message or "Here is how the"
    content = [] if kind == "blocked" else [{"type": "text", "text": partial, "citations": None}]
    details = {
        "type": "refusal",
        "category": "general_harms",
        "explanation": "This request was declined because it could be related to harm.",
    }
    usage = _usage(request, estimate_tokens(partial) if content else 0, 0, None)
    return _message(request, content, "refusal", usage, stop_details=details)


def _usage(request: RecordedRequest, output_tokens: int, searches: int, overrides: Any) -> dict[str, Any]:
    return merged(
        {
            "input_tokens": default_input_tokens(request),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": output_tokens,
            "server_tool_use": {"web_search_requests": searches, "web_fetch_requests": 0},
            "service_tier": "standard",
        },
        overrides,
    )


def _message(
    request: RecordedRequest,
    content: list[dict[str, Any]],
    stop_reason: str,
    usage: dict[str, Any],
    *,
    stop_details: dict[str, Any] | None = None,
) -> HttpReply:
    return HttpReply.json(
        200,
        {
            "id": "msg_01" + token(22),
            "type": "message",
            "role": "assistant",
            "model": (request.body or {}).get("model", ""),
            "content": content,
            "stop_reason": stop_reason,
            "stop_details": stop_details,
            "stop_sequence": None,
            "usage": usage,
            "container": None,
        },
        {"request-id": "req_01" + token(22)},
    )


def error(
    kind: str,
    request: RecordedRequest,
    *,
    message: str | None = None,
    retry_after: float | None = None,
    file_id: str | None = None,
) -> HttpReply:
    table: dict[str, tuple[int, str, str]] = {
        "server_error": (500, "api_error", "Internal server error"),
        "unavailable": (503, "api_error", "Service unavailable"),
        "overloaded": (529, "overloaded_error", "Overloaded"),
        "rate_limit": (429, "rate_limit_error", "This request would exceed the rate limit for your organization."),
        "bad_key": (401, "authentication_error", "invalid x-api-key"),
        "unknown_model": (404, "not_found_error", f"model: {model_of(request)}"),
        "bad_request": (400, "invalid_request_error", "Invalid request."),
        "file_gone": (404, "not_found_error", f"File not found: {file_id}"),
        "not_found": (404, "not_found_error", "Not found"),
    }
    status, error_type, text = table[kind]
    request_id = "req_01" + token(22)
    headers = {"request-id": request_id}
    if retry_after is not None:
        headers["retry-after"] = f"{retry_after:g}"
    if kind == "overloaded":
        headers["x-should-retry"] = "true"
    payload = {"type": "error", "error": {"type": error_type, "message": message or text}, "request_id": request_id}
    return HttpReply.json(status, payload, headers)
