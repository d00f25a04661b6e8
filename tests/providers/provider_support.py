"""Helpers shared by the provider contract tests: the provider table, a request builder, and
the messages a recorded model call carried (`received`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ensemble_tui.core.provider import CallRequest, Message, ReasoningEffort
from ensemble_tui.providers.anthropic_adapter import AnthropicProvider
from ensemble_tui.providers.gemini_adapter import GeminiProvider
from ensemble_tui.providers.openai_adapter import OpenAIProvider
from ensemble_tui.simulator import RecordedRequest

# simulator name -> (adapter class, app label, key variable, base URL variable, auth header)
PROVIDERS = {
    "openai": (OpenAIProvider, "ChatGPT", "OPENAI_API_KEY", "OPENAI_BASE_URL", "authorization"),
    "anthropic": (AnthropicProvider, "Claude", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "authorization"),
    "gemini": (GeminiProvider, "Gemini", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "x-goog-api-key"),
}
NAMES = tuple(PROVIDERS)


def ask(
    *texts: str,
    pdf: Path | None = None,
    model: str = "test-model",
    system: str = "You are a careful reader.",
    temperature: float | None = None,
    web_search: bool = True,
    timeout_s: float = 10.0,
    reasoning_effort: ReasoningEffort | None = None,
) -> CallRequest:
    """A request whose messages alternate user / assistant, starting and ending with the user."""
    roles = ("user", "assistant")
    turns = tuple(Message(roles[index % 2], text) for index, text in enumerate(texts or ("What is this paper about?",)))
    return CallRequest(
        model=model,
        system=system,
        messages=turns,
        pdf=pdf,
        temperature=temperature,
        web_search=web_search,
        timeout_s=timeout_s,
        reasoning_effort=reasoning_effort,
    )


# ----- what a model received, decoded from the request body the simulator recorded ----------

WireMessage = tuple[str, str]  # (role, text); role is "system", "user" or "assistant"
FILE_PART = "[file]"  # a file part (the PDF) in a message, where each API puts it


def received(call: RecordedRequest) -> list[WireMessage]:
    """The messages one model call carried, in order, the system prompt first, whatever API
    the adapter spoke: the same contract reads alike for every provider."""
    body = call.body if isinstance(call.body, dict) else {}
    decode = {"openai": _responses, "anthropic": _messages, "gemini": _contents}.get(call.provider, _chat)
    return decode(body)


def _texts(parts: Any, text_types: tuple[str, ...]) -> str:
    """A message's content as one text: a string, or parts (file parts shown as FILE_PART)."""
    if isinstance(parts, str):
        return parts
    texts = []
    for part in parts:
        kind = part.get("type")
        if kind in text_types or (kind is None and "text" in part):
            texts.append(part["text"])
        else:  # a file, or anything unexpected: visible in the contract's diff
            texts.append(FILE_PART if kind in ("input_file", "document", "file") or "fileData" in part else repr(part))
    return "\n".join(texts)


def _responses(body: dict[str, Any]) -> list[WireMessage]:
    """OpenAI Responses: `instructions`, then `input` (a string, or role/content items)."""
    system = [("system", body["instructions"])] if body.get("instructions") else []
    items = body.get("input") or []
    if isinstance(items, str):
        return [*system, ("user", items)]
    return [*system, *((item["role"], _texts(item["content"], ("input_text", "output_text"))) for item in items)]


def _messages(body: dict[str, Any]) -> list[WireMessage]:
    """Anthropic Messages: `system` (a string or text blocks), then the messages' blocks."""
    system = body.get("system")
    head = [("system", _texts(system, ("text",)))] if system else []
    return [*head, *((message["role"], _texts(message["content"], ("text",))) for message in body["messages"])]


def _contents(body: dict[str, Any]) -> list[WireMessage]:
    """Gemini generateContent: `systemInstruction`, then `user` / `model` contents."""
    instruction = body.get("systemInstruction") or body.get("system_instruction")
    head = [("system", _texts(instruction["parts"], ()))] if instruction else []
    roles = {"user": "user", "model": "assistant"}
    return [*head, *((roles[content["role"]], _texts(content["parts"], ())) for content in body["contents"])]


def _chat(body: dict[str, Any]) -> list[WireMessage]:
    """Chat Completions: system / user / assistant messages, content a string or parts."""
    return [(message["role"], _texts(message["content"], ("text",))) for message in body["messages"]]
