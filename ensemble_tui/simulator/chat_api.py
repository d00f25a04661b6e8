"""The OpenAI Chat Completions endpoint that OpenRouter, DeepSeek, Mistral, xAI, Ollama, llama.cpp
and vLLM all speak: `POST /v1/chat/completions`.

Every simulated OpenAI-compatible provider lives under its own prefix, `/chat/<name>`, with its
own script, so one test can run several of them side by side (`Simulator.chat(name)`,
`Simulator.chat_base_url(name)`). Shapes follow the public API reference: a `chat.completion`
whose one choice holds the assistant message, with `url_citation` annotations when OpenRouter's
`web` plugin (or `web_search_options`) asked for a search; `usage` with prompt and completion
token details; errors as OpenAI's `{"error": {"message", "type", "param", "code"}}`. PDFs sent
inline as OpenRouter's `file` content part are decoded and recorded (`inline_files`).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ensemble_tui.simulator import openai_api
from ensemble_tui.simulator.addresses import CHAT_PREFIX
from ensemble_tui.simulator.script import InlineFile, RecordedRequest, ScriptedReply
from ensemble_tui.simulator.wire import (
    HttpReply,
    citation,
    estimate_tokens,
    merged,
    now,
    sha256,
    split_cited,
    token,
    within_limit,
)

NAME = "chat"
PREFIX = CHAT_PREFIX
_PATHS = ("/v1/chat/completions", "/chat/completions")  # DeepSeek's base URL has no /v1
PDF_TOKENS = 1500  # default prompt tokens per inline PDF, as the other simulated APIs count


def endpoint(method: str, path: str) -> str:
    return "generate" if method == "POST" and path in _PATHS else "unknown"


def parse(request: RecordedRequest) -> None:
    """The last user turn's text and the inline files; a message's content is a string or parts."""
    body = request.body if isinstance(request.body, dict) else {}
    files: list[InlineFile] = []
    for message in body.get("messages") or ():
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        texts = [content] if isinstance(content, str) else []
        for part in content if isinstance(content, list) else ():
            if part.get("type") == "text":
                texts.append(part.get("text", ""))
            if part.get("type") == "file":
                files.append(_inline_file(part.get("file") or {}))
        if message.get("role") == "user":
            request.last_user_text = "\n".join(texts)
    request.inline_files = tuple(files)


def _inline_file(file: dict[str, Any]) -> InlineFile:
    data_url = str(file.get("file_data") or "")
    head, _, payload = data_url.partition(",")
    mime = head.removeprefix("data:").split(";", 1)[0]
    try:
        data = base64.b64decode(payload, validate=True) if head.endswith(";base64") else b""
    except (binascii.Error, ValueError):
        data = b""
    return InlineFile(str(file.get("filename") or ""), mime, len(data), sha256(data))


def authorized(request: RecordedRequest) -> bool:
    return openai_api.authorized(request)


def model_of(request: RecordedRequest) -> str:
    return str((request.body or {}).get("model", ""))


def _prompt_tokens(request: RecordedRequest) -> int:
    """Text of the messages (not the base64 of inline files), plus ~1,500 per inline PDF."""
    body = request.body if isinstance(request.body, dict) else {}
    chars = 0
    for message in body.get("messages") or ():
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            chars += len(content)
        for part in content if isinstance(content, list) else ():
            chars += len(str(part.get("text", ""))) if isinstance(part, dict) else 0
    return max(1, chars // 4) + PDF_TOKENS * len(request.inline_files)


def searching(body: dict[str, Any]) -> bool:
    plugins = body.get("plugins") or []
    return "web_search_options" in body or any(isinstance(p, dict) and p.get("id") == "web" for p in plugins)


def render(request: RecordedRequest, reply: ScriptedReply) -> HttpReply:
    body = request.body or {}
    reply, cut = within_limit(reply, body.get("max_tokens"), "completion_tokens")
    cited = [citation(item) for item in reply.citations] if searching(body) else []
    head, _ = split_cited(reply.text)
    annotations = [
        {
            "type": "url_citation",
            "url_citation": {"url": c.url, "title": c.title, "start_index": len(head), "end_index": len(reply.text)},
        }
        for c in cited
    ]
    prompt_tokens = _prompt_tokens(request)
    completion_tokens = estimate_tokens(reply.text)
    usage = merged(
        {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        },
        reply.usage,
    )
    message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
    if annotations:
        message["annotations"] = annotations
    return _completion(request, message, "length" if cut else reply.stop_reason or "stop", usage)


def stopped(kind: str, request: RecordedRequest, *, message: str | None = None) -> HttpReply:
    """A withheld answer. "refusal": the assistant message has no `content` and a `refusal`
    string; "blocked": the choice ends with `finish_reason: "content_filter"` and no content."""
    refusal = (message or "I'm sorry, but I can't help with that.") if kind == "refusal" else None
    prompt_tokens = _prompt_tokens(request)
    completion_tokens = estimate_tokens(refusal) if refusal else 0
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    answer = {"role": "assistant", "content": None, "refusal": refusal}
    return _completion(request, answer, "stop" if refusal else "content_filter", usage)


def _completion(
    request: RecordedRequest, message: dict[str, Any], finish_reason: str, usage: dict[str, Any]
) -> HttpReply:
    return HttpReply.json(
        200,
        {
            "id": "chatcmpl-" + token(29),
            "object": "chat.completion",
            "created": now(),
            "model": (request.body or {}).get("model", ""),
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
            "usage": usage,
            "system_fingerprint": "fp_sim",
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
    """OpenAI-style error bodies, as the compatible servers send them."""
    return openai_api.error(kind, request, message=message, retry_after=retry_after, file_id=file_id)
