"""The home folder, seeded defaults, configurations, Settings.json and prompt files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ensemble_tui.core.config import PROVIDERS, load_provider_config, load_provider_configs
from ensemble_tui.core.errors import PromptFileError
from ensemble_tui.core.provider import Usage
from ensemble_tui.core.settings import Settings, load_settings
from ensemble_tui.core.store.home import resolve_home, seed_home
from ensemble_tui.core.store.trust import trust
from ensemble_tui.core.turn.costs import usage_cost
from ensemble_tui.core.workspace import Workspace

PROMPT_FILES = [
    "ProposerSystemPrompts/ChatGPT.txt",
    "ProposerSystemPrompts/Claude.txt",
    "ProposerSystemPrompts/Gemini.txt",
    "SynthesizeFromProposalsPrompts/ChatGPT.txt",
    "SynthesizeFromProposalsPrompts/Claude.txt",
    "SynthesizeFromProposalsPrompts/Gemini.txt",
    "AggregatorSystemPrompt.txt",
    "AggregatorUserPrompt.txt",
    "AggregatorForceReplyUserPrompt.txt",
    "SynthesizePromptCommon.txt",
    "SystemPromptCommon.txt",
    "ExampleExplanations.txt",
]


def test_home_resolution_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cwd_home = tmp_path / "cwd"
    (cwd_home / "Prompts").mkdir(parents=True)
    (cwd_home / "Configurations").mkdir()
    plain = tmp_path / "plain"
    plain.mkdir()
    assert resolve_home("/x/explicit", cwd=cwd_home) == Path("/x/explicit")
    monkeypatch.setenv("ENSEMBLE_TUI_HOME", str(tmp_path / "env"))
    assert resolve_home(None, cwd=cwd_home) == tmp_path / "env"
    monkeypatch.delenv("ENSEMBLE_TUI_HOME")
    fallback = resolve_home(None, cwd=plain)
    assert fallback.name == "ensemble-tui" and str(tmp_path / "xdg-data") in str(fallback)
    assert resolve_home(None, cwd=cwd_home) == fallback  # a folder the user did not trust is never the home
    trust(cwd_home)
    assert resolve_home(None, cwd=cwd_home) == cwd_home


def test_seeding_creates_every_spec_prompt_and_never_overwrites_edits(home: Path) -> None:
    paths = seed_home(home)
    for name in PROMPT_FILES:
        assert (paths.prompts / name).is_file(), name
    for name in ("OpenAI.json", "Claude.json", "Gemini.json"):
        assert (paths.configurations / name).is_file()
    edited = paths.prompts / "AggregatorUserPrompt.txt"
    edited.write_text("my own words")
    (paths.prompts / "SystemPromptCommon.txt").unlink()
    seed_home(home)
    assert edited.read_text() == "my own words"
    assert (paths.prompts / "SystemPromptCommon.txt").is_file()


def test_configurations_list_the_spec_models_and_default_to_served_ones(home: Path) -> None:
    configs = load_provider_configs(seed_home(home).configurations).configs
    openai = [model.id for model in configs["ChatGPT"].models]
    assert openai == ["gpt-6.1-sol", "gpt-5", "gpt-5-mini", "o3", "gpt-4.1"]
    assert [m.display_name for m in configs["ChatGPT"].models] == [
        "GPT-6.1 Sol",
        "GPT-5",
        "GPT-5-mini",
        "o3",
        "GPT-4.1",
    ]
    assert "claude-sonnet-4-0" in [m.id for m in configs["Claude"].models]
    assert "gemini-2.5-pro" in [m.id for m in configs["Gemini"].models]
    for label in PROVIDERS:
        default = configs[label].model(configs[label].default_model)
        assert default is not None and default.retired is None and default.price_known
    assert configs["Claude"].model("claude-sonnet-4-0").retired
    assert not any(m.temperature for m in configs["Claude"].models)
    temperature = {m.id: m.temperature for m in configs["ChatGPT"].models}
    assert temperature == {"gpt-6.1-sol": False, "gpt-5": False, "gpt-5-mini": False, "o3": False, "gpt-4.1": True}


def test_every_shipped_model_says_when_it_retires_and_where_that_was_read(home: Path) -> None:
    """Issue 34 §6: each configured model carries its announced retirement date with its source,
    or says none was announced; no default is a model that retires."""
    folder = seed_home(home).configurations
    for path in sorted(folder.glob("*.json")):
        if path.stem in ("Settings", "Keymap"):
            continue
        config = load_provider_config(path)
        for spec in config.models:
            assert spec.retirement_source, f"{path.name}: {spec.id} has no retirement source"
            if spec.retired is None:
                assert spec.retirement_source.startswith("none"), f"{path.name}: {spec.id}"
            else:
                assert spec.retired.isoformat() in spec.retirement_source, f"{path.name}: {spec.id}"
                assert spec.replacement, f"{path.name}: {spec.id} retires without a replacement"
        default = config.model(config.default_model)
        assert default is not None and default.retired is None, path.name


def test_settings_file_is_created_with_defaults(home: Path) -> None:
    workspace = Workspace.open(home)
    data = json.loads(workspace.paths.settings_file.read_text())
    assert data["temperature"] == 0.7 and data["notifications"] is True and data["budget_usd"] == 5.0
    assert data["aggregator"] in PROVIDERS
    assert data["models"]["Claude"] == workspace.configs["Claude"].default_model


def test_every_settings_change_is_written_at_once(home: Path) -> None:
    workspace = Workspace.open(home)
    workspace.update_settings(temperature=1.3, aggregator="Claude")
    data = json.loads(workspace.paths.settings_file.read_text())
    assert data["temperature"] == 1.3 and data["aggregator"] == "Claude"
    assert Workspace.open(home).settings.aggregator == "Claude"


def test_out_of_range_settings_are_refused_and_not_written(home: Path) -> None:
    workspace = Workspace.open(home)
    with pytest.raises(ValueError):
        workspace.update_settings(temperature=2.5)
    assert json.loads(workspace.paths.settings_file.read_text())["temperature"] == 0.7


def test_corrupt_settings_are_kept_aside_and_defaults_used(home: Path) -> None:
    paths = seed_home(home)
    paths.settings_file.write_text('{"temperature": 0.9, ')
    workspace = Workspace.open(home)
    assert workspace.settings.temperature == 0.7
    aside = list(paths.configurations.glob("Settings.json.broken-*"))
    assert len(aside) == 1 and aside[0].read_text() == '{"temperature": 0.9, '
    assert len(workspace.warnings) == 1 and "Settings.json" in workspace.warnings[0]
    assert "\n" not in workspace.warnings[0]
    assert json.loads(paths.settings_file.read_text())["temperature"] == 0.7


def test_settings_with_invalid_values_are_treated_as_broken(home: Path) -> None:
    paths = seed_home(home)
    configs = load_provider_configs(paths.configurations).configs
    paths.settings_file.write_text('{"temperature": 9}')
    loaded = load_settings(paths.settings_file, configs)
    assert loaded.settings == Settings(models=loaded.settings.models) and loaded.warning


def test_broken_provider_configuration_costs_only_that_provider(home: Path) -> None:
    paths = seed_home(home)
    (paths.configurations / "Gemini.json").write_text('{"models": "nope"}')
    workspace = Workspace.open(home)
    assert set(workspace.configs) == {"ChatGPT", "Claude"}
    (warning,) = [w for w in workspace.warnings if "Gemini.json" in w]
    assert "\n" not in warning and "fix it or delete it" in warning
    workspace.attach_providers({}, {})
    assert "Gemini.json" in workspace.unavailable["Gemini"]


def test_extra_provider_files_are_discovered_and_disabled_ones_skipped(home: Path) -> None:
    paths = seed_home(home)
    extra = {
        "label": "DeepSeek",
        "protocol": "openai-chat",
        "base_url": "https://api.deepseek.com",
        "key_env": ["DEEPSEEK_API_KEY"],
        "default_model": "deepseek-chat",
        "models": [{"id": "deepseek-chat", "input": 0.28, "output": 0.42}],
    }
    (paths.configurations / "DeepSeek.json").write_text(json.dumps(extra))
    (paths.configurations / "Off.json").write_text(json.dumps({**extra, "label": "Off", "enabled": False}))
    (paths.configurations / "Broken.json").write_text("{")
    workspace = Workspace.open(home)
    assert "DeepSeek" in workspace.configs and "Off" not in workspace.configs
    assert workspace.configs["DeepSeek"].api == "openai-chat" and workspace.configs["ChatGPT"].api == "openai-responses"
    assert workspace.settings.models["DeepSeek"] == "deepseek-chat"
    assert any("Broken.json" in w for w in workspace.warnings)


def test_unknown_model_gets_a_warning_and_cautious_prices(home: Path) -> None:
    paths = seed_home(home)
    paths.settings_file.write_text(json.dumps({"models": {"ChatGPT": "gpt-9-ultra"}}))
    workspace = Workspace.open(home)
    assert any("gpt-9-ultra" in warning for warning in workspace.warnings)
    spec = workspace.configs["ChatGPT"].spec_or_cautious("gpt-9-ultra")
    known = workspace.configs["ChatGPT"].model("gpt-5")
    usage = Usage(input_tokens=10_000, output_tokens=1_000)
    assert usage_cost(spec, usage) > usage_cost(known, usage)


def test_placeholders_are_replaced_and_other_braces_left_alone(home: Path) -> None:
    workspace = Workspace.open(home)
    prompts = workspace.prompts
    (prompts.folder / "SystemPromptCommon.txt").write_text("COMMON-PART")
    (prompts.folder / "ExampleExplanations.txt").write_text("EXAMPLE-PART")
    (prompts.folder / "SynthesizePromptCommon.txt").write_text("SYNTH-PART")
    (prompts.folder / "ProposerSystemPrompts" / "Claude.txt").write_text(
        'Hi {SystemPromptCommon} see {examples}; math $\\frac{a}{b}$ and JSON {"k": 1} {unknown}'
    )
    (prompts.folder / "SynthesizeFromProposalsPrompts" / "Claude.txt").write_text("{SynthesizePromptCommon} {x}")
    system = prompts.proposer_system("Claude")
    assert system == 'Hi COMMON-PART see EXAMPLE-PART; math $\\frac{a}{b}$ and JSON {"k": 1} {unknown}'
    assert prompts.synthesis_user("Claude") == "SYNTH-PART {x}"
    assert "COMMON-PART" in prompts.aggregator_system() and "EXAMPLE-PART" in prompts.aggregator_system()


def test_shipped_prompts_carry_the_sentinels(home: Path) -> None:
    prompts = Workspace.open(home).prompts
    assert "FINAL REPLY:" in prompts.aggregator_system()
    assert "REQUEST SYNTHESIS FROM PROPOSERS" in prompts.aggregator_system()
    assert "FINAL REPLY:" in prompts.aggregator_user(forced=True)
    for text in (prompts.aggregator_system(), prompts.proposer_system("Gemini"), prompts.synthesis_user("Gemini")):
        assert "{SystemPromptCommon}" not in text and "{examples}" not in text
        assert "{SynthesizePromptCommon}" not in text


def test_missing_prompt_file_names_the_file(home: Path) -> None:
    workspace = Workspace.open(home)
    (workspace.paths.prompts / "AggregatorForceReplyUserPrompt.txt").unlink()
    with pytest.raises(PromptFileError, match="AggregatorForceReplyUserPrompt.txt"):
        workspace.prompts.aggregator_user(forced=True)


async def test_a_placeholder_typo_is_reported_once_naming_the_file(home: Path) -> None:
    from ensemble_tui.core.chat.modes import Mode
    from ensemble_tui.core.turn.engine import Engine
    from ensemble_tui.core.turn.events import Notice
    from tests.support import ScriptedProvider

    workspace = Workspace.open(home)
    path = workspace.paths.prompts / "ProposerSystemPrompts" / "Gemini.txt"
    path.write_text("Be precise. {SystemPromtCommon} and LaTeX {x} stay.")
    workspace.attach_providers({"Gemini": ScriptedProvider("Gemini", default="ok")}, {})  # type: ignore[dict-item]
    engine = Engine(workspace)
    notices = []
    for question in ("one", "two"):
        notices += [e.message async for e in engine.run(Mode.GEMINI, question) if isinstance(e, Notice)]
    assert notices == [
        f"Prompt file {path}: {{SystemPromtCommon}} is not a placeholder - did you mean {{SystemPromptCommon}}? "
        "It is sent as written."
    ]


def test_keymap_and_settings_files_are_not_taken_for_providers(home: Path) -> None:
    paths = seed_home(home)
    (paths.configurations / "Keymap.json").write_text('{"mode.all": "f9"}')
    workspace = Workspace.open(home)
    assert "Keymap" not in workspace.configs and workspace.warnings == []


def test_reasoning_models_offer_an_effort(home: Path) -> None:
    configs = load_provider_configs(seed_home(home).configurations).configs
    assert configs["ChatGPT"].model("gpt-5").reasoning and not configs["ChatGPT"].model("gpt-4.1").reasoning
    assert configs["Claude"].model("claude-sonnet-4-6").reasoning
    assert configs["Gemini"].model("gemini-2.5-pro").reasoning
