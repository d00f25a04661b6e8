"""A small reply body of each API's documented shape, for the warm-up's rehearsal call
(`SdkProvider.warm_up`): the adapter sends one request through its own code to an in-memory
transport, which answers with one of these.

The SDKs build most of their pydantic schemas the first time they turn a request into a body
and a reply body into their types (openai's and anthropic's models defer them; `construct_type`
makes a TypeAdapter per field type; google-genai rebuilds `HttpOptions` and its response types
on first use), and import a few modules on the first request. A first call paid 10-60 ms for
that after the import, every proposer's in turn on the provider loop (bench row 8). So the
bodies carry every field the live APIs send for a reply with a web search and a citation: the
fields follow the API references and the recorded bodies in tests/providers/recorded/. They
are JSON as it comes over the wire, so they are parsed exactly as a real reply is.
"""

from __future__ import annotations

from typing import Any

SOURCE = {"url": "https://example.org/", "title": "Example"}
TEXT = "t"


def openai_response() -> dict[str, Any]:
    """A Responses API `response`: reasoning, a web search call and a cited message."""
    citation = {"type": "url_citation", "start_index": 0, "end_index": 1, **SOURCE}
    message = {
        "type": "message",
        "id": "msg_warm",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": TEXT, "annotations": [citation], "logprobs": []}],
    }
    search = {
        "type": "web_search_call",
        "id": "ws_warm",
        "status": "completed",
        "action": {"type": "search", "query": "q", "sources": [{"type": "url", "url": SOURCE["url"]}]},
    }
    reasoning = {"type": "reasoning", "id": "rs_warm", "summary": []}
    usage = {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    }
    return {
        "id": "resp_warm",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "background": False,
        "completed_at": 0,
        "error": None,
        "incomplete_details": None,
        "instructions": "s",
        "max_output_tokens": None,
        "max_tool_calls": None,
        "model": "warm",
        "output": [reasoning, search, message],
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "prompt_cache_key": None,
        "reasoning": {"effort": "low", "summary": None},
        "safety_identifier": None,
        "service_tier": "default",
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [{"type": "web_search", "search_context_size": "medium", "user_location": None, "filters": None}],
        "top_logprobs": 0,
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
            "web_search": {"num_requests": 1},
        },
        "user": None,
        "metadata": {},
    }


def anthropic_message() -> dict[str, Any]:
    """A Messages API `message`: thinking, a server web search, its results and a cited text."""
    result = {"type": "web_search_result", "encrypted_content": "x", "page_age": None, **SOURCE}
    cited = {"type": "web_search_result_location", "encrypted_index": "x", "cited_text": TEXT, **SOURCE}
    content = [
        {"type": "thinking", "thinking": "r", "signature": "x"},
        {"type": "text", "text": "Before. ", "citations": None},
        {"type": "server_tool_use", "id": "srvtoolu_warm", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_warm", "content": [result]},
        {"type": "text", "text": TEXT, "citations": [cited]},
    ]
    usage = {
        "input_tokens": 1,
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0},
        "service_tier": "standard",
    }
    return {
        "id": "msg_warm",
        "type": "message",
        "role": "assistant",
        "model": "warm",
        "content": content,
        "stop_reason": "end_turn",
        "stop_details": None,
        "stop_sequence": None,
        "usage": usage,
        "container": None,
    }


def gemini_response() -> dict[str, Any]:
    """A `generateContent` response with Google Search grounding."""
    grounding = {
        "webSearchQueries": ["q"],
        "searchEntryPoint": {"renderedContent": "<div></div>"},
        "groundingChunks": [{"web": {"uri": SOURCE["url"], "title": SOURCE["title"], "domain": "example.org"}}],
        "groundingSupports": [
            {"segment": {"startIndex": 0, "endIndex": 1, "text": TEXT}, "groundingChunkIndices": [0]}
        ],
    }
    candidate = {
        "content": {"role": "model", "parts": [{"text": TEXT}]},
        "finishReason": "STOP",
        "index": 0,
        "groundingMetadata": grounding,
    }
    usage = {
        "promptTokenCount": 1,
        "candidatesTokenCount": 1,
        "totalTokenCount": 2,
        "thoughtsTokenCount": 0,
        "toolUsePromptTokenCount": 0,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 1}],
    }
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "warm", "responseId": "warm"}


def chat_completion() -> dict[str, Any]:
    """A Chat Completions `chat.completion` with a URL citation (OpenRouter's web plugin)."""
    cited = {"url": SOURCE["url"], "title": SOURCE["title"], "start_index": 0, "end_index": 1}
    citation = {"type": "url_citation", "url_citation": cited}
    message = {"role": "assistant", "content": TEXT, "refusal": None, "annotations": [citation]}
    usage = {
        "prompt_tokens": 1,
        "completion_tokens": 1,
        "total_tokens": 2,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0},
        "cost": 0.0,  # OpenRouter's (the adapter reads it)
    }
    return {
        "id": "chatcmpl-warm",
        "object": "chat.completion",
        "created": 0,
        "model": "warm",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "stop"}],
        "usage": usage,
        "system_fingerprint": None,
    }
