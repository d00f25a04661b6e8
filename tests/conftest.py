"""Shared fixtures: a fresh home folder per test, and a workspace with scripted providers."""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.retry import RetryPolicy
from ensemble_tui.core.workspace import Workspace
from tests.support import ScriptedProvider, SleepRecorder

REPO_SAMPLE = Path(__file__).resolve().parent / "data" / "sample.pdf"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the user's keys, home folder, trusted folders or base URLs."""
    for name in (
        "ENSEMBLE_TUI_HOME",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "GOOGLE_GEMINI_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("ENSEMBLE_TUI_CONFIG", str(tmp_path / "config"))  # trusted folders (core/store/trust.py)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def sample_pdf(tmp_path: Path) -> Path:
    target = tmp_path / "paper.pdf"
    shutil.copyfile(REPO_SAMPLE, target)
    return target


@pytest.fixture
def workspace(home: Path) -> Workspace:
    return Workspace.open(home)


@pytest.fixture
def scripted(workspace: Workspace) -> dict[str, ScriptedProvider]:
    providers = {label: ScriptedProvider(label) for label in ("ChatGPT", "Claude", "Gemini")}
    workspace.attach_providers(providers, {})  # type: ignore[arg-type]
    # Scripted providers script no claim map: the map is tested through the real adapters (tests/claims).
    workspace.update_settings(claim_map=False)  # written, so an app that reloads Settings.json keeps it
    return providers



@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def make_engine(workspace: Workspace, sleeps: SleepRecorder) -> Callable[..., Engine]:
    def factory(**kwargs: object) -> Engine:
        options: dict[str, object] = {"retry": RetryPolicy(), "rng": random.Random(7), "sleep": sleeps}
        options.update(kwargs)
        return Engine(workspace, **options)  # type: ignore[arg-type]

    return factory
