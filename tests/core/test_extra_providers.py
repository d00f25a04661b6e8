"""Providers added by configuration files: modes, prompts, reasoning effort and PDF notes."""

from __future__ import annotations

import json

import pytest

from ensemble_tui.core.chat.modes import Mode, SingleModel, parse_run_mode
from ensemble_tui.core.errors import PromptFileError
from ensemble_tui.core.turn.events import ProposalReceived, ReplyCommitted
from ensemble_tui.core.workspace import Workspace
from tests.core.helpers import of_type, run_turn
from tests.support import ScriptedProvider

DEEPSEEK = {
    "label": "DeepSeek",
    "protocol": "openai-chat",
    "base_url": "https://api.deepseek.com",
    "key_env": ["DEEPSEEK_API_KEY"],
    "default_model": "deepseek-reasoner",
    "joins_all": True,
    "models": [
        {"id": "deepseek-chat", "input": 0.28, "output": 0.42},
        {"id": "deepseek-reasoner", "input": 0.28, "output": 0.42, "reasoning": True},
    ],
}


def open_with_deepseek(home, **overrides) -> Workspace:
    workspace = Workspace.open(home)
    (workspace.paths.configurations / "DeepSeek.json").write_text(json.dumps({**DEEPSEEK, **overrides}))
    return Workspace.open(home)


class NotedProvider(ScriptedProvider):
    pdf_note = "DeepSeek: the PDF was sent as extracted text"


async def test_all_includes_joining_providers_and_they_run_alone(home, make_engine, sample_pdf):
    workspace = open_with_deepseek(home)
    providers = {label: ScriptedProvider(label, default=f"{label} answer") for label in workspace.configs}
    providers["DeepSeek"] = NotedProvider("DeepSeek", default="DeepSeek answer")
    workspace.attach_providers(providers, {})
    workspace.select_pdf(sample_pdf)
    assert workspace.participants(Mode.ALL) == ("ChatGPT", "Claude", "Gemini", "DeepSeek")
    assert parse_run_mode("deepseek", workspace.extra_providers) == SingleModel("DeepSeek")

    from ensemble_tui.core.turn.engine import Engine

    engine = Engine(workspace, sleep=make_engine().sleep)
    events = await run_turn(engine, Mode.ALL, "Everyone answers")
    assert {e.provider for e in of_type(events, ProposalReceived)} == {"ChatGPT", "Claude", "Gemini", "DeepSeek"}
    (deepseek_call,) = providers["DeepSeek"].calls_as("proposer")
    assert deepseek_call.system == workspace.prompts._system("ProposerSystemPrompts/Default.txt")
    assert deepseek_call.reasoning_effort is None  # "off" until the user chooses an effort
    assert workspace.session.last_outputs["DeepSeek"].note.startswith("DeepSeek: the PDF was sent as extracted")
    assert workspace.session.last_outputs["Claude"].note == ""

    workspace.update_settings(reasoning={"DeepSeek": "high", "ChatGPT": "low"})
    events = await run_turn(engine, SingleModel("DeepSeek"), "Alone now")
    assert of_type(events, ReplyCommitted)[0].text == "DeepSeek answer"
    assert providers["DeepSeek"].calls[-1].reasoning_effort == "high"
    await run_turn(engine, Mode.CHATGPT, "gpt-5 offers an effort")
    assert providers["ChatGPT"].calls[-1].reasoning_effort == "low"
    workspace.update_settings(models={**workspace.settings.models, "ChatGPT": "gpt-4.1"})
    await run_turn(engine, Mode.CHATGPT, "gpt-4.1 does not")
    assert providers["ChatGPT"].calls[-1].reasoning_effort is None


async def test_providers_that_do_not_join_all_are_left_out(home):
    workspace = open_with_deepseek(home, joins_all=False)
    assert workspace.participants(Mode.ALL) == ("ChatGPT", "Claude", "Gemini")


def test_added_providers_fall_back_to_the_default_prompts_but_built_ins_do_not(home):
    workspace = open_with_deepseek(home)
    prompts = workspace.prompts
    assert prompts.proposer_system("DeepSeek") == prompts._system("ProposerSystemPrompts/Default.txt")
    own = prompts.folder / "ProposerSystemPrompts" / "DeepSeek.txt"
    own.write_text("DeepSeek's own prompt")
    assert prompts.proposer_system("DeepSeek") == "DeepSeek's own prompt"
    (prompts.folder / "ProposerSystemPrompts" / "Claude.txt").unlink()
    with pytest.raises(PromptFileError, match="ProposerSystemPrompts/Claude.txt"):
        prompts.proposer_system("Claude")
