"""Providers added by configuration files: their pane, Settings rows, keys, palette entries and
aggregator role; reasoning effort and debate rounds in Settings."""

from __future__ import annotations

import html
import json
import random

import pytest
from textual.command import CommandPalette
from textual.widgets import Input, Select

from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier
from ensemble_tui.ui.panes import pane_id_for_provider
from tests.support import FolderOpener, Hang, ScriptedProvider, no_sleep
from tests.ui.conftest import SIZE, settle, show_pane, shows_pending_input, type_text, wait_until

DEEPSEEK = {
    "label": "DeepSeek",
    "protocol": "openai-chat",
    "base_url": "https://api.deepseek.com",
    "key_env": ["DEEPSEEK_API_KEY"],
    "default_model": "deepseek-chat",
    "joins_all": True,
    "models": [
        {"id": "deepseek-chat", "input": 0.28, "output": 0.42},
        {"id": "deepseek-reasoner", "input": 0.28, "output": 0.42, "reasoning": True},
    ],
}
LOCAL = {  # a label that is neither a widget id nor plain markup, and a provider not in "All"
    "label": "Local [vLLM]",
    "protocol": "openai-chat",
    "base_url": "http://localhost:8000/v1",
    "local": True,
    "joins_all": False,
    "default_model": "qwen",
    "models": [{"id": "qwen", "input": 0, "output": 0}],
}


class NotedProvider(ScriptedProvider):
    pdf_note = "DeepSeek: the PDF was sent as extracted text"


@pytest.fixture
def extra(home, sample_pdf) -> tuple[Workspace, dict[str, ScriptedProvider]]:
    seeded = Workspace.open(home)
    (seeded.paths.configurations / "DeepSeek.json").write_text(json.dumps(DEEPSEEK))
    (seeded.paths.configurations / "Local.json").write_text(json.dumps(LOCAL))
    workspace = Workspace.open(home)
    providers = {label: ScriptedProvider(label, default=f"{label} answer") for label in workspace.configs}
    providers["DeepSeek"] = NotedProvider("DeepSeek", default="DeepSeek answer")
    workspace.attach_providers(providers, {})
    workspace.select_pdf(sample_pdf)
    return workspace, providers


def make(workspace: Workspace) -> EnsembleApp:
    engine = Engine(workspace, rng=random.Random(7), sleep=no_sleep)
    return EnsembleApp(workspace, engine=engine, notifier=RecordingNotifier(), folder_opener=FolderOpener())


def saved(workspace: Workspace) -> dict:
    return json.loads(workspace.paths.settings_file.read_text())


async def test_an_added_provider_has_a_pane_a_key_a_palette_entry_and_can_aggregate(extra):
    workspace, providers = extra
    assert workspace.extra_providers == ("DeepSeek", "Local [vLLM]")
    app = make(workspace)
    async with app.run_test(size=SIZE) as pilot:
        tabs = [pane.id for pane in app.main.tabs.query("TabPane")]
        assert tabs[:6] == [
            "chat",
            "chatgpt",
            "claude",
            "gemini",
            "provider-DeepSeek",
            pane_id_for_provider("Local [vLLM]"),
        ]
        pane = app.main.model_pane("DeepSeek")
        await show_pane(pilot, "provider-DeepSeek")
        assert "deepseek-chat" in str(pane.query_one(".model-heading").content)
        assert "Shift+F1" in str(pane.query_one(".model-output").content)

        await type_text(pilot, "DeepSeek alone")
        await pilot.press("shift+f1")
        await settle(pilot)
        assert [call.model for call in providers["DeepSeek"].calls] == ["deepseek-chat"]
        assert workspace.session.history[-1].text == "DeepSeek answer"
        assert "ℹ DeepSeek: the PDF was sent as extracted text" in str(pane.query_one(".model-note").content)
        assert pane.query_one(".model-note").display
        await show_pane(pilot, "claude")
        assert app.main.model_pane("Claude").query_one(".model-note").display is False

        await type_text(pilot, "The local one, by its xterm name (F14 = Shift+F2)")
        await pilot.press("f14")
        await settle(pilot)
        assert len(providers["Local [vLLM]"].calls) == 1 and workspace.session.last_mode == "local [vllm]"
        await pilot.press("shift+f3")  # no third added provider: nothing happens
        assert app.main.turns.turn is None

        (send,) = [c for c in app.get_system_commands(app.screen) if c.title == "Send with DeepSeek"]
        assert "Shift+F1" in send.help
        await type_text(pilot, "From the palette")
        send.callback()
        await settle(pilot)
        assert len(providers["DeepSeek"].calls) == 2
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Show DeepSeek pane", "Show Local \\[vLLM] pane", "Send with Local \\[vLLM]"} <= titles
        await pilot.press("ctrl+p")  # the palette renders titles as markup: the label stays text
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"local")
        await pilot.pause(0.3)
        shown = html.unescape(app.export_screenshot()).replace("\u00a0", " ")
        assert app.is_running and "[vLLM]" in shown
        await pilot.press("escape")

        await show_pane(pilot, "settings")
        assert app.query_one("#model-DeepSeek", Select).value == "deepseek-chat"
        aggregator = app.query_one("#aggregator", Select)
        aggregator.value = "DeepSeek"
        await pilot.pause()
        assert saved(workspace)["aggregator"] == "DeepSeek"
        await type_text(pilot, "Everyone, DeepSeek decides")
        await pilot.press("f5")
        await settle(pilot)
        assert providers["DeepSeek"].calls_as("aggregator")
        assert len(providers["Local [vLLM]"].calls) == 1  # it does not join "All"

        # Its key again while it runs cancels, as an action button does.
        providers["Local [vLLM]"].scripts["proposer"] = [Hang()]
        await type_text(pilot, "Slow local question")
        await pilot.press("shift+f2")
        await wait_until(pilot, lambda: app.main.turns.turn is not None and shows_pending_input(app))
        await pilot.press("shift+f2")
        await settle(pilot)
        assert app.main.chat.input.text == "Slow local question"
        assert workspace.session.history[-1].text != "Slow local question"


async def test_reasoning_effort_is_offered_only_for_reasoning_models_and_saved(extra):
    workspace, providers = extra
    app = make(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await show_pane(pilot, "settings")
        for provider in ("ChatGPT", "Claude", "Gemini"):  # their default models all reason
            assert app.query_one(f"#reasoning-row-{provider}").display is True
        app.query_one("#model-ChatGPT", Select).value = "gpt-4.1"  # this one does not
        await pilot.pause()
        assert app.query_one("#reasoning-row-ChatGPT").display is False
        assert app.query_one("#reasoning-row-DeepSeek").display is False  # deepseek-chat does not
        assert app.query_one("#reasoning-DeepSeek", Select).disabled
        app.query_one("#model-DeepSeek", Select).value = "deepseek-reasoner"
        await pilot.pause()
        assert app.query_one("#reasoning-row-DeepSeek").display is True
        effort = app.query_one("#reasoning-DeepSeek", Select)
        assert not effort.disabled and effort.value == "off"
        effort.value = "high"
        await pilot.pause()
        assert saved(workspace)["reasoning"] == {"DeepSeek": "high"}
        await type_text(pilot, "Think hard")
        await pilot.press("shift+f1")
        await settle(pilot)
        assert providers["DeepSeek"].calls[-1].reasoning_effort == "high"
        app.main.show_pane("settings")
        app.query_one("#model-DeepSeek", Select).value = "deepseek-chat"
        await pilot.pause()
        assert app.query_one("#reasoning-row-DeepSeek").display is False


async def test_debate_rounds_are_validated_before_they_are_saved(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.main.show_pane("settings")
        await wait_until(pilot, lambda: bool(app.query("#debate-rounds")))  # mounted when first shown
        field = app.query_one("#debate-rounds", Input)
        assert field.value == "3"
        field.focus()
        field.value = "7"
        await pilot.press("enter")  # a typed value is saved whole, on Enter or on leaving the field
        assert saved(workspace)["debate_rounds"] == 7 and workspace.settings.debate_rounds == 7
        for bad in ("2", "11", "4.5", "many"):
            field.value = bad
            await pilot.press("enter")
            assert saved(workspace)["debate_rounds"] == 7
            assert "from 3 to 10" in str(app.query_one("#debate-rounds-error").content)
