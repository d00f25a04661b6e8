"""Issue 34 §6, retiring models: the shipped configurations give each model its announced date,
and the defaults are models that do not retire, so a new home starts without a retirement line
while a home whose settings still name gpt-5 hears of gpt-6.1-sol, then gets it."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ensemble_tui.core import config
from ensemble_tui.core.config import PROVIDERS
from ensemble_tui.core.store.home import seed_home
from ensemble_tui.core.workspace import Workspace


def on(monkeypatch: pytest.MonkeyPatch, day: str) -> None:
    monkeypatch.setattr(config, "today", lambda: date.fromisoformat(day))


@pytest.mark.parametrize("day", ["2026-11-27", "2026-12-12", "2027-01-15"])
def test_a_new_home_starts_without_a_retirement_line_and_calls_served_models(
    home: Path, monkeypatch: pytest.MonkeyPatch, day: str
) -> None:
    on(monkeypatch, day)
    workspace = Workspace.open(home)
    assert not [line for line in workspace.warnings if "retire" in line]
    for provider in PROVIDERS:
        spec = workspace.configs[provider].model(workspace.model_for(provider))
        assert spec is not None and not spec.retired_by(date.fromisoformat(day))


@pytest.mark.parametrize(
    ("day", "expected", "used"),
    [
        ("2026-11-10", None, "gpt-5"),  # more than 30 days before the shutdown
        ("2026-11-27", "ChatGPT: gpt-5 retires on 2026-12-11; its replacement is gpt-6.1-sol", "gpt-5"),
        ("2026-12-11", "ChatGPT: gpt-5 was retired on 2026-12-11; gpt-6.1-sol is used instead", "gpt-6.1-sol"),
    ],
)
def test_settings_naming_gpt_5_hear_of_its_replacement_then_get_it(
    home: Path, monkeypatch: pytest.MonkeyPatch, day: str, expected: str | None, used: str
) -> None:
    on(monkeypatch, day)
    seed_home(home).settings_file.write_text('{"models": {"ChatGPT": "gpt-5"}}')
    workspace = Workspace.open(home)
    lines = [line for line in workspace.warnings if "gpt-5 " in line]
    assert [line.split(" - ")[0] for line in lines] == ([expected] if expected else [])
    assert workspace.model_for("ChatGPT") == used
    assert workspace.settings.models["ChatGPT"] == "gpt-5"  # the choice is kept, as written
