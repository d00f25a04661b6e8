"""Fixtures: a fresh simulator per test, a small PDF, and adapters pointed at the simulator."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from ensemble_tui.providers.base import SdkProvider
from ensemble_tui.providers.credentials import Credentials
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
