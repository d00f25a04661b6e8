"""The OpenAI endpoints the ChatGPT adapter uses: the Files API (`POST /v1/files` with an optional
`expires_after`, `GET /v1/files`, `DELETE /v1/files/{id}`) and `POST /v1/responses`.

Shapes follow the public API reference: a FileObject for uploads (its `expires_at` set from
`expires_after[seconds]` past `created_at`), a list object (`data`, `first_id`, `last_id`,
`has_more`), a deletion status (`{"id", "object": "file", "deleted": true}`); a Response whose `output`
holds a `web_search_call` item and an assistant `message` with `output_text` carrying
`url_citation` annotations; `usage` with input/output token details; errors as
`{"error": {"message", "type", "param", "code"}}`.
"""

from __future__ import annotations

from typing import Any

from ensemble_tui.simulator.addresses import OPENAI_PREFIX
from ensemble_tui.simulator.script import ProviderScript, RecordedRequest, ScriptedReply, SimFile
from ensemble_tui.simulator.wire import (
    HttpReply,
    citation,
    default_input_tokens,
    estimate_tokens,
    merged,
    now,
    split_cited,
    token,
    within_limit,
)

NAME = "openai"
PREFIX = OPENAI_PREFIX


def endpoint(method: str, path: str) -> str:
    if method == "POST" and path == "/v1/files":
        return "upload"
    if method == "GET" and path == "/v1/files":
        return "file_list"
    if method == "DELETE" and path.startswith("/v1/files/"):
        return "file_delete"
    if method == "POST" and path == "/v1/responses":
        return "generate"
    return "unknown"


def parse(request: RecordedRequest) -> None:
    body = request.body if isinstance(request.body, dict) else {}
    items = body.get("input")
    if isinstance(items, str):
        request.last_user_text = items
        return
    files: list[str] = []
    for item in items or ():
        content = item.get("content") if isinstance(item, dict) else None
        texts = [content] if isinstance(content, str) else []
        for part in content if isinstance(content, list) else ():
            if part.get("type") == "input_file" and part.get("file_id"):
                files.append(part["file_id"])
            if part.get("type") == "input_text":
                texts.append(part.get("text", ""))
        if isinstance(item, dict) and item.get("role", "user") == "user":
            request.last_user_text = "\n".join(texts)
    request.file_ids = tuple(files)


def authorized(request: RecordedRequest) -> bool:
    return request.headers.get("authorization", "").startswith("Bearer ") and len(
        request.headers["authorization"]
    ) > len("Bearer ")


def model_of(request: RecordedRequest) -> str:
    return str((request.body or {}).get("model", ""))


def upload(request: RecordedRequest, script: ProviderScript, data: bytes, sha: str) -> HttpReply:
    form = request.multipart or {}
    upload_file = form.get("files", {}).get("file", {})
    fields = form.get("fields", {})
    file = SimFile(
        "file-" + token(22),
        upload_file.get("filename", "upload"),
        "application/pdf",
        len(data),
        sha,
        purpose=fields.get("purpose", ""),
    )
    if fields.get("expires_after[anchor]") == "created_at" and fields.get("expires_after[seconds]", "").isdigit():
        file.expires_at = file.created_at + int(fields["expires_after[seconds]"])
    script.add_file(file)
    return HttpReply.json(200, _file_object(file))


def _file_object(file: SimFile) -> dict[str, Any]:
    return {
        "id": file.id,
        "object": "file",
        "bytes": file.size,
        "created_at": int(file.created_at),
        "expires_at": int(file.expires_at) if file.expires_at is not None else None,
        "filename": file.filename,
        "purpose": file.purpose,
        "status": "processed",
        "status_details": None,
    }


def file_list(request: RecordedRequest, script: ProviderScript, base_url: str) -> HttpReply:
    """`GET /v1/files`, newest first (the API's default order), filtered by `purpose`; one page."""
    purpose = request.query.get("purpose")
    files = [f for f in reversed(script.stored) if purpose is None or f.purpose == purpose]
    data = [_file_object(f) for f in files]
    return HttpReply.json(
        200,
        {
            "object": "list",
            "data": data,
            "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None,
            "has_more": False,
        },
    )


def file_delete(request: RecordedRequest, script: ProviderScript) -> HttpReply:
    file_id = request.path.rsplit("/", 1)[-1]
    if script.remove_file(file_id) is None:
        return error("file_gone", request, file_id=file_id)
    return HttpReply.json(200, {"id": file_id, "object": "file", "deleted": True})


def render(request: RecordedRequest, reply: ScriptedReply) -> HttpReply:
    body = request.body or {}
    reply, cut = within_limit(reply, body.get("max_output_tokens"), "output_tokens")
    tools = body.get("tools") or []
    searching = any(tool.get("type", "").startswith("web_search") for tool in tools)
    cited = [citation(item) for item in reply.citations] if searching else []
    output: list[dict[str, Any]] = []
    if searching:
        output.append(
            {
                "type": "web_search_call",
                "id": "ws_" + token(40, "0123456789abcdef"),
                "status": "completed",
                "action": {"type": "search", "query": request.last_user_text[:80]},
            }
        )
    head, _ = split_cited(reply.text)
    annotations = [
        {"type": "url_citation", "start_index": len(head), "end_index": len(reply.text), "url": c.url, "title": c.title}
        for c in cited
    ]
    output.append(
        {
            "type": "message",
            "id": "msg_" + token(40, "0123456789abcdef"),
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": reply.text, "annotations": annotations, "logprobs": []}],
        }
    )
    return _response(
        request,
        output,
        estimate_tokens(reply.text),
        reply.usage,
        searches=1 if searching else 0,
        incomplete="max_output_tokens" if cut else None,
    )


def stopped(kind: str, request: RecordedRequest, *, message: str | None = None) -> HttpReply:
    """A withheld answer. "refusal": a completed response whose message holds a `refusal`
    content part instead of `output_text`; "blocked": an `incomplete` response stopped by the
    content filter (`incomplete_details.reason == "content_filter"`), with no output."""
    if kind == "blocked":
        return _response(request, [], 0, None, incomplete="content_filter")
    refusal = message or "I'm sorry, but I can't help with that."
    output = [
        {
            "type": "message",
            "id": "msg_" + token(40, "0123456789abcdef"),
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "refusal", "refusal": refusal}],
        }
    ]
    return _response(request, output, estimate_tokens(refusal), None)


def _response(
    request: RecordedRequest,
    output: list[dict[str, Any]],
    output_tokens: int,
    usage_overrides: Any,
    *,
    searches: int = 0,
    incomplete: str | None = None,
) -> HttpReply:
    """A Response object around `output`; `incomplete` is the reason it stopped early."""
    body = request.body or {}
    tools = body.get("tools") or []
    input_tokens = default_input_tokens(request)
    usage = merged(
        {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
        usage_overrides,
    )
    return HttpReply.json(
        200,
        {
            "id": "resp_" + token(48, "0123456789abcdef"),
            "object": "response",
            "created_at": now(),
            "status": "incomplete" if incomplete else "completed",
            "completed_at": None if incomplete else now(),
            "error": None,
            "incomplete_details": {"reason": incomplete} if incomplete else None,
            "instructions": body.get("instructions"),
            "max_output_tokens": body.get("max_output_tokens"),
            "model": body.get("model", ""),
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "reasoning": {"effort": (body.get("reasoning") or {}).get("effort"), "summary": None},
            "store": True,
            "temperature": body.get("temperature", 1.0),
            "text": body.get("text") or {"format": {"type": "text"}},  # a json_schema format is echoed
            "tool_choice": "auto",
            "tools": tools,
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage,
            "tool_usage": {
                "image_gen": {
                    "input_tokens": 0,
                    "input_tokens_details": {"image_tokens": 0, "text_tokens": 0},
                    "output_tokens": 0,
                    "total_tokens": 0,
                },
                "web_search": {"num_requests": searches},
            },
            "user": None,
            "metadata": {},
        },
        {"x-request-id": "req_" + token(32, "0123456789abcdef")},
    )


def error(
    kind: str,
    request: RecordedRequest,
    *,
    message: str | None = None,
    retry_after: float | None = None,
    file_id: str | None = None,
) -> HttpReply:
    model = model_of(request)
    key = request.headers.get("authorization", "").removeprefix("Bearer ")
    masked = f"{key[:3]}{'*' * 8}{key[-4:]}" if len(key) > 8 else "****"
    table: dict[str, tuple[int, str, str | None, str | None]] = {
        "server_error": (
            500,
            "The server had an error while processing your request. Sorry about that!",
            "server_error",
            None,
        ),
        "unavailable": (503, "The server is temporarily unavailable. Please try again later.", "server_error", None),
        "overloaded": (503, "The engine is currently overloaded, please try again later.", "server_error", None),
        "rate_limit": (
            429,
            f"Rate limit reached for {model or 'this model'} on tokens per min (TPM). Please try again in "
            f"{retry_after or 1:g}s.",
            "tokens",
            "rate_limit_exceeded",
        ),
        "bad_key": (
            401,
            f"Incorrect API key provided: {masked}. You can find your API key at https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            "invalid_api_key",
        ),
        "unknown_model": (
            404,
            f"The model `{model}` does not exist or you do not have access to it.",
            "invalid_request_error",
            "model_not_found",
        ),
        "bad_request": (400, "Invalid request.", "invalid_request_error", None),
        "file_gone": (404, f"No such File object: {file_id}", "invalid_request_error", None),
        "not_found": (404, "Invalid URL", "invalid_request_error", None),
    }
    status, text, error_type, code = table[kind]
    headers = {"x-request-id": "req_" + token(32, "0123456789abcdef")}
    if retry_after is not None:
        headers["retry-after"] = f"{retry_after:g}"
    param = "model" if kind == "unknown_model" else None
    payload = {"error": {"message": message or text, "type": error_type, "param": param, "code": code}}
    return HttpReply.json(status, payload, headers)
