"""build_providers: keys from the environment or `.env`, base URLs, unavailable providers, and
lazy SDK imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.anthropic_adapter import AnthropicProvider
from ensemble_tui.providers.gemini_adapter import GeminiProvider
from ensemble_tui.providers.openai_adapter import OpenAIProvider
from ensemble_tui.providers.registry import build_providers

ALL_KEYS = {"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a", "GEMINI_API_KEY": "g-k"}


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
    assert unavailable == {
        "Claude": "Claude is unavailable: set ANTHROPIC_API_KEY (environment or .env)",
        "Gemini": "Gemini is unavailable: set GEMINI_API_KEY or GOOGLE_API_KEY (environment or .env)",
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
    assert providers["Gemini"].credentials.key == "from-cwd"  # the current folder beats the home folder
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
        "assert len(providers) == 3\n"
        "heavy = ('openai', 'anthropic', 'google.genai', 'httpx2', 'textual')\n"
        "print([name for name in heavy if name in sys.modules])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env={**os.environ}, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
