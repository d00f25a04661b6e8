"""Helpers shared by the provider contract tests: the provider table and a request builder."""

from __future__ import annotations

from pathlib import Path

from ensemble_tui.core.provider import CallRequest, ReasoningEffort, Turn
from ensemble_tui.providers.anthropic_adapter import AnthropicProvider
from ensemble_tui.providers.gemini_adapter import GeminiProvider
from ensemble_tui.providers.openai_adapter import OpenAIProvider

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
    turns = tuple(Turn(roles[index % 2], text) for index, text in enumerate(texts or ("What is this paper about?",)))
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
