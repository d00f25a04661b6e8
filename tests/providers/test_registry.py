"""build_providers: keys from the environment or `.env`, base URLs, unavailable providers, the
adapter chosen by protocol, disabled and keyless configurations, and lazy SDK imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ensemble_tui.core.config import ProviderConfig, load_provider_config
from ensemble_tui.core.store.home import defaults_root
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.anthropic_adapter import AnthropicProvider
from ensemble_tui.providers.chat_completions_adapter import ChatCompletionsProvider
from ensemble_tui.providers.credentials import SIMULATED_CHAT_VAR
from ensemble_tui.providers.gemini_adapter import GeminiProvider
from ensemble_tui.providers.openai_adapter import OpenAIProvider
from ensemble_tui.providers.registry import NO_KEY, build_providers

ALL_KEYS = {"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a", "GEMINI_API_KEY": "g-k"}
CHAT_KEYS = {**ALL_KEYS, "DEEPSEEK_API_KEY": "d", "OPENROUTER_API_KEY": "o"}
EXAMPLES = ("OpenRouter", "DeepSeek", "Mistral", "xAI", "Ollama")


def example(workspace: Workspace, name: str, **changes: object) -> ProviderConfig:
    """A shipped example configuration (seeded into the home folder), with `changes` applied."""
    config = load_provider_config(workspace.paths.configurations / f"{name}.json")
    return config.model_copy(update=changes)


def add(workspace: Workspace, *configs: ProviderConfig) -> None:
    for config in configs:
        workspace.configs[config.label] = config


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    home = tmp_path / "home"
    here = tmp_path / "cwd"
    here.mkdir()
    monkeypatch.chdir(here)  # a developer's own .env must not leak into these tests
    return Workspace.open(home)


def test_every_provider_with_a_key_is_built(workspace):
    providers, unavailable = build_providers(workspace, env=ALL_KEYS)
    assert unavailable == {}
    assert isinstance(providers["ChatGPT"], OpenAIProvider)
    assert isinstance(providers["Claude"], AnthropicProvider)
    assert isinstance(providers["Gemini"], GeminiProvider)
    assert {label: adapter.label for label, adapter in providers.items()} == {
        "ChatGPT": "ChatGPT",
        "Claude": "Claude",
        "Gemini": "Gemini",
    }
    assert providers["Claude"].credentials.key == "sk-a"
    assert providers["Claude"].credentials.base_url is None  # the SDK default


def test_a_missing_key_makes_the_provider_unavailable_with_a_message(workspace):
    env = {"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "  "}
    providers, unavailable = build_providers(workspace, env=env)
    assert set(providers) == {"ChatGPT"}
    dotenv = workspace.paths.root / ".env"
    assert unavailable == {
        "Claude": f"Claude is unavailable: set ANTHROPIC_API_KEY in the environment or in {dotenv}",
        "Gemini": f"Gemini is unavailable: set GEMINI_API_KEY or GOOGLE_API_KEY in the environment or in {dotenv}",
    }


def test_a_key_in_the_current_folders_env_is_named_as_not_read(workspace, monkeypatch):
    """The usual place for a `.env` is the folder one works in; it is not read unless that
    folder is the home, so the message that asks for the key says so instead of nothing."""
    monkeypatch.setenv("HOME", str(workspace.paths.root.parent))
    Path(".env").write_text("ANTHROPIC_API_KEY=sk-here\n")
    _, unavailable = build_providers(workspace, env={"OPENAI_API_KEY": "sk-o", "GEMINI_API_KEY": "g"})
    assert unavailable == {
        "Claude": "Claude is unavailable: set ANTHROPIC_API_KEY in the environment or in ~/home/.env"
        " (the .env in this folder is not read: it is not the home folder)"
    }
    monkeypatch.chdir(workspace.paths.root)
    (workspace.paths.root / ".env").write_text("GEMINI_API_KEY=g\n")
    _, unavailable = build_providers(workspace, env={"OPENAI_API_KEY": "sk-o"})  # in the home, its .env is read
    assert unavailable == {
        "Claude": "Claude is unavailable: set ANTHROPIC_API_KEY in the environment or in ~/home/.env"
    }


def test_gemini_accepts_google_api_key_and_names_it_in_errors(workspace):
    providers, _ = build_providers(workspace, env={"GOOGLE_API_KEY": "g-2"})
    credentials = providers["Gemini"].credentials
    assert (credentials.key, credentials.key_var) == ("g-2", "GOOGLE_API_KEY")
    providers, _ = build_providers(workspace, env={"GOOGLE_API_KEY": "g-2", "GEMINI_API_KEY": "g-1"})
    assert providers["Gemini"].credentials.key_var == "GEMINI_API_KEY"


def test_keys_from_dotenv_files_without_touching_os_environ(workspace, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    (workspace.paths.root / ".env").write_text("ANTHROPIC_API_KEY=from-home\nGEMINI_API_KEY=home-gemini\n")
    Path(".env").write_text("GEMINI_API_KEY=from-cwd\n")
    providers, unavailable = build_providers(workspace, env={"OPENAI_API_KEY": "sk-o"})
    assert unavailable == {}
    assert providers["Claude"].credentials.key == "from-home"
    assert providers["Gemini"].credentials.key == "home-gemini"  # the current folder's .env is never read
    assert "ANTHROPIC_API_KEY" not in os.environ
    providers, _ = build_providers(workspace, env={**ALL_KEYS})
    assert providers["Gemini"].credentials.key == "g-k"  # the environment beats both


def test_base_url_from_environment_then_configuration(workspace):
    path = workspace.paths.configurations / "Claude.json"
    config = json.loads(path.read_text())
    config["base_url"] = "https://gateway.example/anthropic"
    path.write_text(json.dumps(config))
    reopened = Workspace.open(workspace.paths.root)
    providers, _ = build_providers(reopened, env=ALL_KEYS)
    assert providers["Claude"].credentials.base_url == "https://gateway.example/anthropic"
    env = {**ALL_KEYS, "ANTHROPIC_BASE_URL": "http://proxy.example", "OPENAI_BASE_URL": "http://o.example/v1"}
    providers, _ = build_providers(reopened, env=env)
    assert providers["Claude"].credentials.base_url == "http://proxy.example"
    assert providers["ChatGPT"].credentials.base_url == "http://o.example/v1"
    assert providers["Gemini"].credentials.base_url is None


def test_adapters_never_show_their_key(workspace):
    providers, _ = build_providers(workspace, env=ALL_KEYS)
    for adapter in providers.values():
        assert adapter.credentials.key not in repr(adapter)
        assert adapter.credentials.key not in repr(adapter.credentials)


def test_building_providers_imports_no_sdk(tmp_path):
    code = (
        "import sys, pathlib\n"
        "from ensemble_tui.core.workspace import Workspace\n"
        "from ensemble_tui.providers.registry import build_providers\n"
        "import ensemble_tui.simulator.demo\n"
        f"ws = Workspace.open(pathlib.Path({str(tmp_path / 'home')!r}))\n"
        f"providers, _ = build_providers(ws, env={ALL_KEYS!r})\n"
        "from ensemble_tui.core.config import load_provider_config\n"
        "for label in ('DeepSeek', 'OpenRouter', 'Ollama'):\n"
        "    config = load_provider_config(ws.paths.configurations / (label + '.json'))\n"
        "    ws.configs[label] = config.model_copy(update={'enabled': True})\n"
        f"providers, _ = build_providers(ws, env={CHAT_KEYS!r})\n"
        "assert len(providers) == 6, providers\n"
        "heavy = ('openai', 'anthropic', 'google.genai', 'httpx2', 'textual', 'pypdf')\n"
        "print([name for name in heavy if name in sys.modules])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env={**os.environ}, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_shipped_examples_are_disabled_chat_configurations():
    folder = defaults_root() / "Configurations"
    for label in EXAMPLES:
        config = load_provider_config(folder / f"{label}.json")
        assert config.label == label
        assert (config.protocol, config.api, config.enabled) == ("openai-chat", "openai-chat", False)
        assert config.model(config.default_model) is not None
        assert config.base_url and config.base_url.startswith(("https://", "http://localhost"))
        for spec in config.models:
            if spec.input is None:  # an unknown price must say so
                assert spec.notes, spec.id
    ollama = load_provider_config(folder / "Ollama.json")
    assert (ollama.key_env, ollama.local, ollama.joins_all, ollama.pdf) == ([], True, False, "text")
    assert all(spec.input == 0 and spec.output == 0 for spec in ollama.models)
    openrouter = load_provider_config(folder / "OpenRouter.json")
    assert (openrouter.pdf, openrouter.web_search) == ("file-part", "openrouter-plugin")
    assert openrouter.key_env == ["OPENROUTER_API_KEY"]


def test_disabled_configurations_are_skipped_silently(workspace):
    add(workspace, *(example(workspace, label) for label in EXAMPLES))
    workspace.configs["Claude"] = workspace.configs["Claude"].model_copy(update={"enabled": False})
    providers, unavailable = build_providers(workspace, env={**ALL_KEYS, "DEEPSEEK_API_KEY": "d"})
    assert set(providers) == {"ChatGPT", "Gemini"}
    assert unavailable == {}  # a disabled example is not a problem to report


def test_an_enabled_chat_configuration_gets_the_chat_adapter(workspace):
    add(workspace, example(workspace, "DeepSeek", enabled=True), example(workspace, "OpenRouter", enabled=True))
    env = {**ALL_KEYS, "DEEPSEEK_API_KEY": "sk-d", "OPENROUTER_API_KEY": "sk-or"}
    providers, unavailable = build_providers(workspace, env=env)
    assert unavailable == {}
    deepseek, openrouter = providers["DeepSeek"], providers["OpenRouter"]
    assert isinstance(deepseek, ChatCompletionsProvider) and isinstance(openrouter, ChatCompletionsProvider)
    assert (deepseek.label, deepseek.credentials.key, deepseek.credentials.key_var) == (
        "DeepSeek",
        "sk-d",
        "DEEPSEEK_API_KEY",
    )
    assert deepseek.credentials.base_url == "https://api.deepseek.com"
    assert deepseek.pdf_note and "extracted text" in deepseek.pdf_note
    assert (deepseek.options.pdf, deepseek.options.web_search, deepseek.options.local) == ("text", "none", False)
    assert openrouter.credentials.base_url == "https://openrouter.ai/api/v1"
    assert openrouter.pdf_note is None
    assert (openrouter.options.pdf, openrouter.options.web_search) == ("file-part", "openrouter-plugin")
    assert all(getattr(providers[label], "pdf_note", None) is None for label in ("ChatGPT", "Claude", "Gemini"))


def test_openai_variables_never_reach_a_chat_provider(workspace):
    add(workspace, example(workspace, "DeepSeek", enabled=True))
    env = {**ALL_KEYS, "DEEPSEEK_API_KEY": "sk-d", "OPENAI_BASE_URL": "http://proxy.example/v1"}
    providers, _ = build_providers(workspace, env=env)
    assert providers["DeepSeek"].credentials.base_url == "https://api.deepseek.com"
    assert providers["DeepSeek"].credentials.key == "sk-d"


def test_a_chat_provider_without_its_key_is_unavailable(workspace):
    add(workspace, example(workspace, "DeepSeek", enabled=True))
    providers, unavailable = build_providers(workspace, env=ALL_KEYS)
    assert "DeepSeek" not in providers
    dotenv = workspace.paths.root / ".env"
    assert unavailable == {
        "DeepSeek": f"DeepSeek is unavailable: set DEEPSEEK_API_KEY in the environment or in {dotenv}"
    }


def test_a_keyless_local_server_needs_no_key(workspace):
    add(workspace, example(workspace, "Ollama", enabled=True))
    providers, unavailable = build_providers(workspace, env=ALL_KEYS)
    assert unavailable == {}
    ollama = providers["Ollama"]
    assert isinstance(ollama, ChatCompletionsProvider)
    assert (ollama.credentials.key, ollama.credentials.key_var) == (NO_KEY, "key_env in Ollama.json")
    assert ollama.credentials.base_url == "http://localhost:11434/v1"
    assert ollama.options.local and ollama.options.config_file == "Ollama.json"


def test_the_adapter_follows_the_protocol_not_the_label(workspace):
    opus = example(workspace, "DeepSeek", enabled=True, label="Claude Opus", protocol="anthropic-messages")
    opus = opus.model_copy(update={"key_env": ["ANTHROPIC_API_KEY"], "base_url": None})
    local = example(workspace, "Ollama", enabled=True, label="vLLM box", base_url="http://gpu.lan:8000/v1")
    add(workspace, opus, local)
    providers, unavailable = build_providers(workspace, env=ALL_KEYS)
    assert unavailable == {}
    assert isinstance(providers["Claude Opus"], AnthropicProvider)
    assert isinstance(providers["vLLM box"], ChatCompletionsProvider)
    assert providers["vLLM box"].credentials.base_url == "http://gpu.lan:8000/v1"


def test_a_chat_provider_without_a_base_url_is_unavailable(workspace):
    add(workspace, example(workspace, "Ollama", enabled=True, base_url=None))
    providers, unavailable = build_providers(workspace, env=ALL_KEYS)
    assert unavailable == {"Ollama": "Ollama is unavailable: set base_url in Ollama.json"}


def test_under_the_simulator_every_chat_provider_is_simulated(workspace):
    add(workspace, example(workspace, "DeepSeek", enabled=True), example(workspace, "xAI", enabled=True))
    env = {**ALL_KEYS, SIMULATED_CHAT_VAR: "http://127.0.0.1:9/chat/"}
    providers, unavailable = build_providers(workspace, env=env)
    assert unavailable == {}  # no real key needed, and none used
    assert providers["DeepSeek"].credentials.base_url == "http://127.0.0.1:9/chat/deepseek/v1"
    assert providers["xAI"].credentials.base_url == "http://127.0.0.1:9/chat/xai/v1"
    assert providers["xAI"].credentials.key.startswith("sk-sim-")
