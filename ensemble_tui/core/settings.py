"""`Configurations/Settings.json`: the user's choices, read at start and rewritten on every change."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ensemble_tui.core.config import PROVIDERS, ProviderConfig
from ensemble_tui.core.store.atomic import aside_path, atomic_write_json

ReasoningSetting = Literal["off", "low", "medium", "high"]
AutoPair = Literal["samples", "two-models"]


class Settings(BaseModel):
    """Everything the Settings pane edits. Unknown keys are ignored so older files still load."""

    # Python's json reads Infinity and NaN: a budget of Infinity would overflow every turn's sums.
    model_config = ConfigDict(extra="ignore", validate_assignment=True, allow_inf_nan=False)

    models: dict[str, str] = Field(default_factory=dict)
    aggregator: str = Field(default="ChatGPT", min_length=1)  # any provider label, added ones included
    temperature: float = Field(default=0.7, ge=0.0, le=2.0)
    notifications: bool = True
    budget_usd: float = Field(default=5.0, gt=0)
    debate_rounds: int = Field(default=3, ge=3, le=10)
    reasoning: dict[str, ReasoningSetting] = Field(default_factory=dict)  # provider -> effort; missing = off
    theme: str | None = None  # the Textual theme chosen in the palette; None: the default
    # Uploaded PDFs no chat has sent for this many days are deleted from the providers at start-up;
    # OpenAI uploads are also set to expire after it (at most 30 days, the API's limit).
    upload_retention_days: int = Field(default=7, ge=1, le=365)
    # The claim map of a multi-model turn (issue 26): on or off, and the provider that draws it
    # (None: the aggregator, with its selected model; any configured provider may be chosen).
    claim_map: bool = True
    claim_mapper: str | None = Field(default=None, min_length=1)
    # Auto mode (issue 27 §3): the providers trusted to answer alone when two answers agree (the
    # cheapest of them, by its selected model's configured prices, answers first), and whether
    # that is two samples of the cheapest, or the two cheapest answering once each.
    strong: list[str] = Field(default_factory=lambda: list(PROVIDERS))
    auto_pair: AutoPair = "samples"

    def model_for(self, provider: str, configs: dict[str, ProviderConfig]) -> str:
        """The selected model id for `provider`, falling back to its configured default (also
        when the selected model has retired: a call to it would only fail)."""
        config = configs.get(provider)
        if provider in self.models:
            selected = self.models[provider]
            spec = config.model(selected) if config is not None else None
            if config is None or spec is None or not spec.retired_by():
                return selected
        return config.default_model if config is not None else ""


@dataclass(frozen=True)
class LoadedSettings:
    settings: Settings
    warning: str | None = None


def default_settings(configs: dict[str, ProviderConfig]) -> Settings:
    return Settings(models={label: config.default_model for label, config in configs.items()})


def load_settings(path: Path, configs: dict[str, ProviderConfig]) -> LoadedSettings:
    """Read Settings.json; create it when missing. A file that is not JSON is set aside and the
    defaults are used; a bad value is dropped alone (the file is still set aside, as a backup),
    so one typo never lifts the budget cap or resets any other choice.

    Models missing from the file are filled from each provider's default, so a file written by
    an older version keeps working.
    """
    defaults = default_settings(configs)
    if not path.exists():
        save_settings(path, defaults)
        return LoadedSettings(defaults)
    warning = None
    loaded, bad = _read(path)
    if loaded is None or bad:
        kept = _set_aside(path)
        if loaded is None:
            loaded = defaults
            warning = f"Settings.json is not valid JSON; {kept}, defaults in use."
        else:
            names = ", ".join(bad)
            warning = (
                f"Settings.json has an invalid {names}; {kept}, the default used for it, every other setting kept."
            )
    merged = {**defaults.models, **loaded.models}
    if merged != loaded.models:
        loaded.models = merged
    if warning is not None:
        save_settings(path, loaded)
    return LoadedSettings(loaded, warning)


def read_settings(path: Path) -> Settings:
    """Settings.json as it is, for the commands that only read a home: nothing is written, and a
    missing or broken file reads as the defaults (the app's next start repairs it and says so)."""
    return _read(path)[0] or Settings()


def _read(path: Path) -> tuple[Settings | None, list[str]]:
    """The settings in the file, each invalid field at its default, and those fields' names;
    (None, []) for a file that cannot be read or is not a JSON object."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None, []
    return _valid_part(raw) if isinstance(raw, dict) else (None, [])


def _valid_part(raw: dict[str, object]) -> tuple[Settings, list[str]]:
    """The settings from `raw` with each invalid field left at its default, and those fields' names."""
    try:
        return Settings.model_validate(raw), []
    except ValidationError as exc:
        bad = sorted({str(error["loc"][0]) for error in exc.errors() if error["loc"]})
    good = {key: value for key, value in raw.items() if key not in bad}
    try:
        return Settings.model_validate(good), bad
    except ValidationError:
        return Settings(), sorted(raw)


def _set_aside(path: Path) -> str:
    aside = aside_path(path)
    try:
        path.replace(aside)
    except OSError:
        return "left in place"
    return f"kept as {aside.name}"


def save_settings(path: Path, settings: Settings) -> None:
    atomic_write_json(path, settings.model_dump(mode="json"))
