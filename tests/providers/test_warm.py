"""The warm-up (issue 18, section 5): each SDK imported and its client built, then one call
rehearsed in memory, so the first question's requests go out and its replies are read as fast
as later ones. Real SDK adapters against the loopback simulator."""

from __future__ import annotations

import asyncio
import time

import pytest

from ensemble_tui.core.turn.warm_up import warm_up_all
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.headless import ask
from ensemble_tui.providers.base import SdkProvider
from ensemble_tui.providers.rehearsal import rehearsal_call
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

    async def rehearse(self) -> None:
        self.steps.append(f"rehearse {self.name}")


@pytest.mark.asyncio
async def test_every_sdk_is_imported_before_any_call_is_rehearsed_and_a_failure_stops_nothing():
    """Rehearsing one SDK right after its import let its first request leave while the next
    SDK was still being imported; the requests of a first turn must leave together."""
    steps: list[str] = []
    providers = {"Broken": Broken(), "A": Recorded("A", steps), "Scripted": object(), "B": Recorded("B", steps)}
    await warm_up_all(providers)
    assert steps == ["import A", "import B", "rehearse A", "rehearse B"]


@pytest.mark.parametrize("name", NAMES)
async def test_a_rehearsal_reads_a_reply_of_the_real_shape_and_sends_nothing(make, sim, name):
    """The canned reply goes through the adapter's own reading of the reply, so a reply shape
    the SDK no longer reads fails here rather than leaving a warm-up that warms nothing."""
    adapter = make(name)
    await adapter.warm_up()
    reply = await rehearsal_call(adapter)
    assert reply.text.endswith("t") and reply.sources == ("https://example.org/",)
    assert reply.usage.web_searches == 1 and reply.usage.output_tokens == 1
    assert sim.requests == []  # nothing left the machine
    sim.script(name).push(ScriptedReply("The real answer."))
    real = await adapter.complete(request_for("And the real question?"))
    assert real.text == "The real answer." and len(sim.script(name).calls) == 1


async def test_a_chat_completions_rehearsal_reads_its_reply_and_sends_nothing(make_chat, sim):
    adapter = make_chat("OpenRouter", web_search="openrouter-plugin", key_var="OPENROUTER_API_KEY")
    await adapter.warm_up()
    reply = await rehearsal_call(adapter)
    assert reply.text == "t" and reply.sources == ("https://example.org/",)
    assert reply.usage.cost_usd == 0.0  # OpenRouter's own figure is read
    assert sim.requests == []


@pytest.mark.parametrize("name", NAMES)
async def test_a_rehearsal_never_holds_back_a_request_under_way(make, sim, name, monkeypatch):
    """A rehearsal holds the provider loop while it runs; one started beside a real call waits
    until that call's request is out. Here the rehearsal, once started, blocks the loop until
    the simulator has the request: had it started first, the request could never arrive."""
    adapter = make(name)
    await adapter.warm_up()
    sim.script(name).push(ScriptedReply("Answered.", latency_s=0.2))
    arrived_first: list[bool] = []
    canned = type(adapter).canned_reply

    def canned_after_the_request(self: SdkProvider) -> dict:
        deadline = time.monotonic() + 3.0
        while not sim.script(name).calls and time.monotonic() < deadline:
            time.sleep(0.01)  # the provider loop stands still meanwhile, as in a long rehearsal
        arrived_first.append(bool(sim.script(name).calls))
        return canned()

    monkeypatch.setattr(type(adapter), "canned_reply", canned_after_the_request)
    reply, _ = await asyncio.gather(adapter.complete(request_for("Now?")), adapter.rehearse())
    assert reply.text == "Answered." and arrived_first == [True]
