"""Fixtures: a fresh simulator per test, a small PDF, and adapters pointed at the simulator
(the three built-ins by simulator name, OpenAI-compatible ones by label)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from ensemble_tui.providers import pdf_text
from ensemble_tui.providers.base import SdkProvider
from ensemble_tui.providers.chat_completions_adapter import ChatCompletionsProvider, ChatOptions
from ensemble_tui.providers.credentials import Credentials, provider_slug
from ensemble_tui.providers.gemini_adapter import GeminiProvider
from ensemble_tui.simulator import Simulator
from tests.providers.provider_support import PROVIDERS


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator() as simulator:
        yield simulator


@pytest.fixture
def pdf(tmp_path: Path) -> Path:
    path = tmp_path / "paper.pdf"
    # binary bytes (incl. CR/LF and a fake boundary) check that multipart bodies arrive intact
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8 + b"\r\n--boundary\r\n%%EOF\n")
    return path


@pytest.fixture
async def make(sim: Simulator) -> AsyncIterator[Callable[[str], SdkProvider]]:
    """Build an adapter for a simulator provider name; closed after the test."""
    built: list[SdkProvider] = []

    def factory(name: str) -> SdkProvider:
        cls, label, key_var, url_var, _ = PROVIDERS[name]
        adapter = cls(label, Credentials(key=sim.env[key_var], key_var=key_var, base_url=sim.env[url_var]))
        if isinstance(adapter, GeminiProvider):
            adapter.poll_first_s = 0.01
        built.append(adapter)
        return adapter

    yield factory
    for adapter in built:
        await adapter.aclose()


CHAT_KEY = "sk-sim-chat-key-1234"


@pytest.fixture(autouse=True)
def _fresh_pdf_texts() -> Iterator[None]:
    """Extracted PDF texts are cached for the whole process; each test starts without them."""
    pdf_text.TEXTS.clear()
    yield
    pdf_text.TEXTS.clear()


@pytest.fixture
async def make_chat(sim: Simulator) -> AsyncIterator[Callable[..., ChatCompletionsProvider]]:
    """Build a Chat Completions adapter served by `sim.chat(<label, lower-case>)`; closed after the test.

    `key_var=None` builds a keyless one (a local server); `base_url` overrides the simulator's.
    """
    built: list[ChatCompletionsProvider] = []

    def factory(
        label: str = "DeepSeek",
        *,
        pdf: str = "text",
        web_search: str = "none",
        local: bool = False,
        key_var: str | None = "DEEPSEEK_API_KEY",
        base_url: str | None = None,
    ) -> ChatCompletionsProvider:
        credentials = Credentials(
            key=CHAT_KEY if key_var else "ensemble-tui-no-key",
            key_var=key_var or f"key_env in {label}.json",
            base_url=base_url or sim.chat_base_url(provider_slug(label)),
        )
        options = ChatOptions(pdf, web_search, local, f"{label}.json")  # type: ignore[arg-type]
        adapter = ChatCompletionsProvider(label, credentials, options)
        built.append(adapter)
        return adapter

    yield factory
    for adapter in built:
        await adapter.aclose()
