"""The claim tests' turns: the real adapters against the demo simulator, the sample paper chosen."""

from __future__ import annotations

import random

import pytest

from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.retry import RetryPolicy
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator.demo import DemoSimulator


@pytest.fixture
def demo():
    simulator = DemoSimulator(seed=1, latency=(0.0, 0.0))
    simulator.start()
    yield simulator
    simulator.stop()


@pytest.fixture
async def engine(workspace, demo, sleeps, sample_pdf):
    providers, unavailable = build_providers(workspace, env=demo.env)
    workspace.attach_providers(providers, unavailable)
    workspace.select_pdf(sample_pdf)
    yield Engine(workspace, retry=RetryPolicy(), rng=random.Random(3), sleep=sleeps, timeout_s=10)
    for adapter in providers.values():
        await adapter.aclose()
