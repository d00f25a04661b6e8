"""The warm-up (issue 18, section 5; issue 23): each SDK imported and its client built before the
first question needs them, so its requests go out together. Real SDK adapters against the
loopback simulator."""

from __future__ import annotations

import logging

import pytest

from ensemble_tui.core.turn.warm_up import warm_up_all
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.headless import ask
from ensemble_tui.providers.base import SdkProvider
from ensemble_tui.simulator import ScriptedReply
from tests.providers.provider_support import NAMES
from tests.providers.provider_support import ask as request_for


def test_ask_builds_every_client_before_its_first_model_call(home, monkeypatch, capsys):
    workspace = Workspace.open(home)
    at_each_call: list[tuple[str, set[str]]] = []
    original = SdkProvider._complete

    async def recording(self: SdkProvider, request):
        ready = {label for label, p in workspace.providers.items() if p._client_instance is not None}
        at_each_call.append((self.label, ready))
        return await original(self, request)

    monkeypatch.setattr(SdkProvider, "_complete", recording)
    code = ask(workspace, question="What is new here?", mode="all", style="aggregate", new=True, pdf=None, demo=True)
    assert code == 0, capsys.readouterr().err
    labels = set(workspace.providers)
    assert len(labels) >= 3 and len(at_each_call) > len(labels)  # the proposers, then the aggregator
    for label, ready in at_each_call:
        assert ready == labels, f"{label} was called before {sorted(labels - ready)} had its client"


class Broken:
    label = "Broken"

    async def warm_up(self) -> None:
        raise RuntimeError("no SDK")


class Recorded:
    def __init__(self, name: str, steps: list[str]) -> None:
        self.name = name
        self.steps = steps

    async def warm_up(self) -> None:
        self.steps.append(f"import {self.name}")


@pytest.mark.asyncio
async def test_a_provider_whose_warm_up_fails_stops_no_other(caplog):
    """A provider that cannot build its client says so at its first call; the others still warm."""
    steps: list[str] = []
    providers = {"Broken": Broken(), "A": Recorded("A", steps), "Scripted": object(), "B": Recorded("B", steps)}
    with caplog.at_level(logging.INFO, logger="ensemble_tui.core.turn.warm_up"):
        await warm_up_all(providers)
    assert steps == ["import A", "import B"]
    assert "Broken: warm-up failed: no SDK" in caplog.text


@pytest.mark.parametrize("name", NAMES)
async def test_a_warm_up_sends_nothing_and_the_first_call_then_goes_out(make, sim, name):
    adapter = make(name)
    await adapter.warm_up()
    assert sim.requests == []  # nothing left the machine
    sim.script(name).push(ScriptedReply("The real answer."))
    real = await adapter.complete(request_for("And the real question?"))
    assert real.text == "The real answer." and len(sim.script(name).calls) == 1
