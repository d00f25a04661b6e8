"""The warm-up (issue 18, section 5; issue 23): each SDK imported and its client built before the
first question needs them, so its requests go out together. Real SDK adapters against the
loopback simulator."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from pathlib import Path

import pytest

from ensemble_tui.cli import build_parser
from ensemble_tui.commands import ask
from ensemble_tui.commands.context import command_context
from ensemble_tui.core.turn.warm_up import warm_up_all
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.base import SdkProvider
from ensemble_tui.simulator import ScriptedReply
from tests.providers.provider_support import NAMES
from tests.providers.provider_support import ask as request_for


def test_ask_builds_every_client_before_its_first_model_call(home, monkeypatch, capsys):
    workspace: Workspace
    at_each_call: list[tuple[str, set[str]]] = []
    original = SdkProvider._complete

    async def recording(self: SdkProvider, request):
        ready = {label for label, p in workspace.providers.items() if p._client_instance is not None}
        at_each_call.append((self.label, ready))
        return await original(self, request)

    monkeypatch.setattr(SdkProvider, "_complete", recording)
    args = build_parser().parse_args(
        ["ask", "--home", str(home), "--demo", "--mode", "all", "--new", "What is new here?"]
    )
    with command_context(args, ask.NEEDS) as context:  # the home opened and its providers attached, as `ask` has them
        workspace = context.workspace
        code = ask.run(args, context)
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


WARM_MODELS_SCRIPT = """
import asyncio, importlib, json, sys
from ensemble_tui.providers.anthropic_adapter import AnthropicProvider
from ensemble_tui.providers.chat_completions_adapter import ChatCompletionsProvider
from ensemble_tui.providers.credentials import Credentials
from ensemble_tui.providers.gemini_adapter import GeminiProvider
from ensemble_tui.providers.io_loop import stop_io_loop
from ensemble_tui.providers.openai_adapter import OpenAIProvider

def model(dotted):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)

PARTS = {  # models a first reply holds, which its SDK reads field by field (not through the reply model)
    "ChatCompletionsProvider": ["openai.types.chat.ChatCompletionMessage", "openai.types.CompletionUsage"],
    "OpenAIProvider": ["openai.types.responses.ResponseOutputMessage", "openai.types.responses.ResponseOutputText"],
    "AnthropicProvider": ["anthropic.types.beta.BetaTextBlock", "anthropic.types.beta.BetaUsage"],
    "GeminiProvider": ["google.genai.types.Content", "google.genai.types.Part"],
}
seen = {}
for cls in (ChatCompletionsProvider, OpenAIProvider, AnthropicProvider, GeminiProvider):
    adapter = cls(cls.__name__, Credentials(key="sk-test", key_var="TEST_KEY", base_url="http://127.0.0.1:9"))
    for dotted in cls.warm_models:
        importlib.import_module(dotted.rpartition(".")[0])
    parts = PARTS[cls.__name__]
    before = {dotted: model(dotted).__pydantic_complete__ for dotted in (*cls.warm_models, *parts)}
    pypdf_before = "pypdf" in sys.modules
    asyncio.run(adapter.warm_up())
    seen[cls.__name__] = [(dotted, before[dotted], model(dotted).__pydantic_complete__) for dotted in cls.warm_models]
    seen[cls.__name__ + " parts"] = [(dotted, before[dotted], model(dotted).__pydantic_complete__) for dotted in parts]
    if cls is ChatCompletionsProvider:  # the PDF sent as text (the default): pypdf imported too
        seen["pypdf"] = [pypdf_before, "pypdf" in sys.modules]
stop_io_loop()
print(json.dumps(seen))
"""


def test_a_warm_up_builds_the_sdk_models_the_first_call_would_build():
    """The SDKs defer building their pydantic models to first use (~0.1 s of CPU at the first turn,
    most of it google-genai's Tool and openai's Response): the warm-up builds the ones each
    adapter's calls use, and imports pypdf where the PDF is sent as text. A process that has made
    no call, since any earlier test's call has built them here: forked from tests/forked.py's
    server, which imported the SDKs and ran nothing. The models those hold are built too: the SDKs
    read a reply field by field, and a first reply built them (openai's ~0.2 s of CPU, issue 36)."""
    import json

    from tests import forked

    done = forked.run_python(WARM_MODELS_SCRIPT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    # an endpoint sent the PDF as text: its extraction's import (pypdf, ~75 ms) is warmed too
    assert seen.pop("pypdf") == [False, True]
    names = {"OpenAIProvider", "AnthropicProvider", "GeminiProvider", "ChatCompletionsProvider"}
    assert set(seen) == names | {f"{name} parts" for name in names}
    for adapter, models in seen.items():
        assert models, f"{adapter} names no model to build"
        for dotted, built_before, built_after in models:
            assert not built_before, f"{dotted} is built at import: the SDK no longer defers it, drop it"
            assert built_after, f"{adapter}'s warm-up left {dotted} to its first call"


def test_a_one_model_ask_warms_only_that_model(home, monkeypatch, capsys):
    """`ask --mode chatgpt` imports no other SDK ahead of its call: the provider loop it shares
    would otherwise import anthropic and google-genai (~1.4 s) before ChatGPT's request."""
    warmed: list[str] = []
    original = SdkProvider.warm_up

    async def recording(self: SdkProvider) -> None:
        warmed.append(self.label)
        await original(self)

    monkeypatch.setattr(SdkProvider, "warm_up", recording)
    code, _ = run_ask(home, "--mode", "chatgpt", "What is new?")
    assert code == 0, capsys.readouterr().err
    assert warmed == ["ChatGPT"]
    warmed.clear()
    code, workspace = run_ask(home, "--mode", "all", "And now?")
    assert code == 0, capsys.readouterr().err
    assert set(warmed) == set(workspace.providers) and len(warmed) == len(set(warmed))


def run_ask(home: Path, *argv: str) -> tuple[int, Workspace]:
    """`ensemble-tui ask --home HOME --demo --new ARGV` as the command runs it: its exit code and
    the workspace it ran in."""
    args = build_parser().parse_args(["ask", "--home", str(home), "--demo", "--new", *argv])
    with command_context(args, ask.NEEDS) as context:
        return ask.run(args, context), context.workspace


class Collector:
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def freeze_now(self) -> None: ...


class ImportingOnTheProviderLoop:
    """A provider whose warm-up holds the provider loop a while, as an SDK's import does."""

    def __init__(self, name: str, steps: list[str]) -> None:
        self.name = name
        self.steps = steps
        self.started = threading.Event()

    async def warm_up(self) -> None:
        from ensemble_tui.providers.io_loop import on_io_loop

        async def importing() -> None:
            self.started.set()
            time.sleep(0.3)  # holds the provider loop, as an import does
            self.steps.append(f"warm {self.name}")

        await on_io_loop(importing())


async def test_a_question_asked_during_the_apps_warm_up_waits_for_one_import_not_all():
    """The app's warm-up warms one provider at a time: a call queued while the first SDK imports
    goes out next, before the other providers' imports (anthropic's alone is ~2 s of CPU)."""
    from ensemble_tui.providers.io_loop import on_io_loop
    from ensemble_tui.ui.warm_up import warm_up_providers

    steps: list[str] = []
    providers = {name: ImportingOnTheProviderLoop(name, steps) for name in ("A", "B", "C")}
    warming = asyncio.ensure_future(warm_up_providers(providers, Collector(), lambda: False))
    await asyncio.to_thread(providers["A"].started.wait, 10)  # A's import holds the provider loop

    async def call() -> None:
        steps.append("call")

    await on_io_loop(call())
    await warming
    assert steps == ["warm A", "call", "warm B", "warm C"]
