"""A small reply of each API's documented shape, parsed once through the SDK's own models by the
warm-up (`SdkProvider.warm_up`).

The SDKs build their pydantic schemas the first time they parse a reply (openai's and
anthropic's models defer them; `construct_type` makes a TypeAdapter per field type), which cost
a first call 0.2-0.5 s after the import, every proposer's in turn on the provider loop (bench
row 8). Parsing one reply with a message, a web search and a citation ahead of time builds most
of them; no request is made. The bodies follow the API references (and the simulator's replies).
"""

from __future__ import annotations

from typing import Any

SOURCE = {"url": "https://example.org/", "title": "Example"}


def openai_response() -> Any:
    """A Responses API `response` with a web search call and a cited message."""
    from openai.types.responses import Response

    citation = {"type": "url_citation", "start_index": 0, "end_index": 1, **SOURCE}
    message = {
        "type": "message",
        "id": "msg_warm",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "t", "annotations": [citation], "logprobs": []}],
    }
    search = {
        "type": "web_search_call",
        "id": "ws_warm",
        "status": "completed",
        "action": {"type": "search", "query": "q", "sources": [{"type": "url", "url": SOURCE["url"]}]},
    }
    usage = {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    }
    return Response.construct(
        id="resp_warm",
        object="response",
        created_at=0,
        status="completed",
        error=None,
        incomplete_details=None,
        model="warm",
        output=[search, message],
        parallel_tool_calls=True,
        reasoning={"effort": None, "summary": None},
        text={"format": {"type": "text"}},
        tool_choice="auto",
        tools=[{"type": "web_search"}],
        usage=usage,
    )


def anthropic_message() -> Any:
    """A Messages API (beta) `message` with a server web search, its results and a cited text."""
    from anthropic.types.beta import BetaMessage

    result = {"type": "web_search_result", "encrypted_content": "x", "page_age": None, **SOURCE}
    cited = {"type": "web_search_result_location", "encrypted_index": "x", "cited_text": "t", **SOURCE}
    content = [
        {"type": "server_tool_use", "id": "srvtoolu_warm", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_warm", "content": [result]},
        {"type": "text", "text": "t", "citations": [cited]},
    ]
    usage = {
        "input_tokens": 1,
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "server_tool_use": {"web_search_requests": 1},
    }
    return BetaMessage.construct(
        id="msg_warm",
        type="message",
        role="assistant",
        model="warm",
        content=content,
        stop_reason="end_turn",
        stop_sequence=None,
        usage=usage,
    )


def gemini_response() -> Any:
    """A `generateContent` response with Google Search grounding."""
    from google.genai import types

    grounding = {
        "webSearchQueries": ["q"],
        "groundingChunks": [{"web": {"uri": SOURCE["url"], "title": SOURCE["title"]}}],
        "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 1, "text": "t"}, "groundingChunkIndices": [0]}],
    }
    candidate = {
        "content": {"role": "model", "parts": [{"text": "t"}]},
        "finishReason": "STOP",
        "index": 0,
        "groundingMetadata": grounding,
    }
    usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
    return types.GenerateContentResponse.model_validate(
        {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "warm"}
    )


def chat_completion() -> Any:
    """A Chat Completions `chat.completion`."""
    from openai.types.chat import ChatCompletion

    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "t"}}
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    return ChatCompletion.construct(
        id="chatcmpl-warm", object="chat.completion", created=0, model="warm", choices=[choice], usage=usage
    )
