"""All turns mixing the three built-in providers with OpenAI-compatible ones, through the engine, the
real SDKs and the simulator: DeepSeek reads the PDF as extracted text, OpenRouter as an inline
file part; both propose, revise and are aggregated like the built-ins. A local server that is
not running costs one fatal line and no retries."""

from __future__ import annotations

import hashlib
import random
import shutil

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.config import ProviderConfig, load_provider_config
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import ProposalReceived, ProposerFailed, ReplyCommitted, Resubmitted, RunFailed
from ensemble_tui.core.turn.retry import RetryPolicy
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers import pdf_text
from ensemble_tui.providers.credentials import SIMULATED_CHAT_VAR
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator import ScriptedReply, Simulator, closed_port_url

AGGREGATION = "# Proposed Reply 1:"
REVISION = "Your own proposal"
BUILT_INS = ("ChatGPT", "Claude", "Gemini")


def enable(workspace: Workspace, name: str, **changes: object) -> ProviderConfig:
    """Enable a shipped example: its configuration, and prompt files like ChatGPT's.

    The core reads `ProposerSystemPrompts/<label>.txt` and `SynthesizeFromProposalsPrompts/<label>.txt`
    for every proposer, and ships none for added providers.
    """
    config = load_provider_config(workspace.paths.configurations / f"{name}.json")
    config = config.model_copy(update={"enabled": True, **changes})
    workspace.configs[config.label] = config
    for folder in ("ProposerSystemPrompts", "SynthesizeFromProposalsPrompts"):
        prompts = workspace.paths.prompts / folder
        shutil.copyfile(prompts / "ChatGPT.txt", prompts / f"{config.label}.txt")
    return config


async def attach(workspace: Workspace, env: dict[str, str], sleeps) -> Engine:
    providers, unavailable = build_providers(workspace, env=env)
    assert unavailable == {}
    workspace.attach_providers(providers, unavailable)
    workspace.update_settings(aggregator="Claude")
    return Engine(workspace, retry=RetryPolicy(), rng=random.Random(3), sleep=sleeps, timeout_s=5)


async def close(workspace: Workspace) -> None:
    for adapter in workspace.providers.values():
        await adapter.aclose()  # type: ignore[attr-defined]


async def run(engine: Engine, mode: Mode, text: str) -> list[object]:
    return [event async for event in engine.run(mode, text)]


def of(events: list[object], kind: type) -> list:
    return [event for event in events if isinstance(event, kind)]


def first_user_content(call) -> object:
    return next(message["content"] for message in call.body["messages"] if message["role"] == "user")


@pytest.fixture
async def mixed(workspace: Workspace, sim: Simulator, sleeps):
    enable(workspace, "DeepSeek")
    enable(workspace, "OpenRouter")
    engine = await attach(workspace, sim.env, sleeps)
    yield engine
    await close(workspace)


async def test_a_multi_turn_all_run_mixing_built_in_and_compatible_providers(mixed, sim, workspace, sample_pdf):
    assert set(workspace.participants(Mode.ALL)) == {*BUILT_INS, "DeepSeek", "OpenRouter"}
    workspace.select_pdf(sample_pdf)
    deepseek, openrouter = sim.chat("deepseek"), sim.chat("openrouter")
    workspace.settings.claim_map = False  # every call here reads the PDF; the mapper's reads none (tests/claims)
    deepseek.default = ScriptedReply("DeepSeek reads the field note as a survey.")
    openrouter.default = ScriptedReply(
        "OpenRouter's model sees three styles. They are compared.", citations=("https://example.org/styles",)
    )
    sim.anthropic.push(
        ScriptedReply("REQUEST SYNTHESIS FROM PROPOSERS\nTighten it.", match=AGGREGATION, unless=REVISION),
        ScriptedReply("FINAL REPLY:\nThe combined answer.", match=AGGREGATION, unless=REVISION),
        ScriptedReply("FINAL REPLY:\nThe second answer.", match=AGGREGATION, unless=REVISION),
    )

    events = await run(mixed, Mode.ALL, "What does the paper show?")

    assert [event.text for event in of(events, ReplyCommitted)] == ["The combined answer."]
    assert of(events, ProposerFailed) == [] and of(events, RunFailed) == []
    proposers = {event.provider for event in of(events, ProposalReceived)}
    assert proposers == {*BUILT_INS, "DeepSeek", "OpenRouter"}
    assert len(of(events, Resubmitted)) == 1
    # both proposed and revised (a proposal, then a revision after the resynthesis request)
    for script in (deepseek, openrouter):
        assert len(script.calls) == 2
        assert sum(REVISION in call.text for call in script.calls) == 1
    # their proposals reached the aggregator's packet, with their makers' names taken out (issue 34 §4)
    packets = [call.text for call in sim.anthropic.calls if AGGREGATION in call.text and REVISION not in call.text]
    assert packets and all("reads the field note" in packet and "sees three styles" in packet for packet in packets)
    assert not any("DeepSeek" in packet or "OpenRouter" in packet for packet in packets)
    # DeepSeek got the PDF as text (extracted once); its default deepseek-v4-flash (deepseek-chat
    # retired on 2026-07-24) is not confirmed to take a temperature, so none is sent
    for call in deepseek.calls:
        assert call.body["model"] == "deepseek-v4-flash"
        assert "Deliberation Among Language Models" in first_user_content(call)
        assert not {"plugins", "reasoning_effort", "temperature"} & set(call.body)
    assert pdf_text.TEXTS.extractions == 1
    # OpenRouter got the PDF itself, byte for byte, and the web plugin; gpt-5 takes no temperature
    digest = hashlib.sha256(sample_pdf.read_bytes()).hexdigest()
    for call in openrouter.calls:
        assert call.body["model"] == "openai/gpt-5"
        assert [(f.filename, f.sha256) for f in call.inline_files] == [("paper.pdf", digest)]
        assert call.body["plugins"] == [{"id": "web"}]
        assert "temperature" not in call.body
    # the built-ins work exactly as before
    for script in sim.scripts.values():
        assert len(script.uploads) == 1
        assert all(call.file_ids for call in script.calls)

    second = await run(mixed, Mode.ALL, "And its limitations?")

    assert [event.text for event in of(second, ReplyCommitted)] == ["The second answer."]
    latest = deepseek.calls[-1].body["messages"]
    assert [message["role"] for message in latest] == ["system", "user", "assistant", "user"]
    assert "Deliberation Among Language Models" in latest[1]["content"]  # the PDF stays in the first turn
    assert latest[2]["content"] == "The combined answer."
    assert pdf_text.TEXTS.extractions == 1  # not extracted again for the next turn


async def test_a_local_server_that_is_not_running_is_skipped_without_retries(workspace, sim, sleeps):
    enable(workspace, "Ollama", joins_all=True, base_url=closed_port_url())
    env = {name: value for name, value in sim.env.items() if name != SIMULATED_CHAT_VAR}  # the real base URL
    engine = await attach(workspace, env, sleeps)
    sim.anthropic.push(ScriptedReply("FINAL REPLY:\nWithout Ollama.", match=AGGREGATION))
    try:
        events = await run(engine, Mode.ALL, "Question?")
    finally:
        await close(workspace)
    (failed,) = of(events, ProposerFailed)
    origin = workspace.configs["Ollama"].base_url.removesuffix("/v1")  # type: ignore[union-attr]
    assert failed.provider == "Ollama"
    assert failed.message == f"Ollama at {origin} is not reachable - start it, or set enabled: false in Ollama.json"
    assert sleeps.delays == []  # fatal: no retry storm
    assert [event.text for event in of(events, ReplyCommitted)] == ["Without Ollama."]
