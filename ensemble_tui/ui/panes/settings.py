"""The Settings pane: a model per provider, the aggregator, temperature, budget, notifications.

The pane only edits; it posts SettingChanged and the app saves through
`Workspace.update_settings`, then reports back with `saved()` or `rejected()`.
"""

from __future__ import annotations

import math
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.validation import Number
from textual.widgets import Checkbox, Input, Label, Select, Static

from ensemble_tui.core.config import PROVIDERS, ProviderConfig
from ensemble_tui.core.settings import Settings
from ensemble_tui.ui.rendering import plain

AGGREGATORS = ("ChatGPT", "Claude", "Gemini")
SETTINGS_FILE = "Configurations/Settings.json"


def model_options(config: ProviderConfig, current: str) -> list[tuple[Text, str]]:
    """(label, id) pairs from the configuration; a selected model missing from it is kept."""
    options: list[tuple[Text, str]] = []
    for spec in config.models:
        label = spec.display_name if spec.display_name == spec.id else f"{spec.display_name} ({spec.id})"
        if spec.retired:
            label += f" - retired {spec.retired}"
        options.append((plain(label), spec.id))
    if config.model(current) is None:
        options.append((plain(f"{current} (not in the configuration)"), current))
    return options


def selected_id(config: ProviderConfig, current: str) -> str:
    spec = config.model(current)
    return spec.id if spec is not None else current


def key_hint(config: ProviderConfig, reason: str) -> str:
    """The unavailability reason, naming the environment variable to set if it does not already."""
    if any(name in reason for name in config.key_env) or not config.key_env:
        return reason
    return f"{reason} (set {' or '.join(config.key_env)})"


class SettingsPane(VerticalScroll):
    class SettingChanged(Message):
        """The user changed one setting; `name` is a Settings field, `value` its new value."""

        def __init__(self, name: str, value: Any) -> None:
            super().__init__()
            self.name = name
            self.value = value

    def __init__(
        self,
        configs: dict[str, ProviderConfig],
        settings: Settings,
        unavailable: dict[str, str],
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._configs = configs
        self._settings = settings
        self._unavailable = unavailable

    def compose(self) -> ComposeResult:
        settings = self._settings
        for provider in PROVIDERS:
            config = self._configs.get(provider)
            if config is None:  # its configuration file is unusable; the core says why
                reason = self._unavailable.get(provider, f"{provider}: configuration unusable")
                yield Static(plain(f"⚠ {reason}"), classes="setting-warning -alone", id=f"nokey-{provider}")
                continue
            current = settings.model_for(provider, self._configs)
            with Horizontal(classes="setting-row"):
                yield Label(f"{provider} model", classes="setting-label")
                yield Select(
                    model_options(config, current),
                    value=selected_id(config, current),
                    allow_blank=False,
                    id=f"model-{provider}",
                    classes="setting-model",
                )
            reason = self._unavailable.get(provider)
            if reason:
                yield Static(plain(f"⚠ {key_hint(config, reason)}"), classes="setting-warning", id=f"nokey-{provider}")
        with Horizontal(classes="setting-row"):
            yield Label("Aggregator", classes="setting-label")
            yield Select(
                [(name, name) for name in AGGREGATORS], value=settings.aggregator, allow_blank=False, id="aggregator"
            )
        with Horizontal(classes="setting-row"):
            yield Label("Temperature (0-2)", classes="setting-label")
            yield Input(
                str(settings.temperature),
                id="temperature",
                validators=[Number(0.0, 2.0, failure_description="Temperature must be a number from 0 to 2.")],
                tooltip="Used by models that accept a temperature; others ignore it.",
            )
        with Horizontal(classes="setting-row"):
            yield Label("Budget per chat (USD)", classes="setting-label")
            yield Input(
                str(settings.budget_usd),
                id="budget",
                validators=[Number(0.01, None, failure_description="The budget must be a number above 0.")],
                tooltip="A run stops before a call that could take this chat past the budget.",
            )
        with Horizontal(classes="setting-row"):
            yield Label("Notifications", classes="setting-label")
            yield Checkbox("Notify when a reply is complete", settings.notifications, id="notifications")
        yield Static(plain(f"Every change is saved at once to {SETTINGS_FILE}."), id="settings-status")

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.value is Select.NULL or event.select.id is None:
            return
        if event.select.id == "aggregator":
            if event.value != self._settings.aggregator:
                self.post_message(self.SettingChanged("aggregator", event.value))
            return
        provider = event.select.id.removeprefix("model-")
        if event.value != selected_id(self._configs[provider], self._settings.model_for(provider, self._configs)):
            self.post_message(self.SettingChanged("models", {**self._settings.models, provider: event.value}))

    @on(Input.Changed, "#temperature, #budget")
    def _number_changed(self, event: Input.Changed) -> None:
        event.stop()
        name = "temperature" if event.input.id == "temperature" else "budget_usd"
        if event.validation_result is not None and not event.validation_result.is_valid:
            self.rejected(event.validation_result.failure_descriptions[0])
            return
        value = float(event.value)
        if not math.isfinite(value):
            self.rejected("Enter a finite number.")
            return
        if value != getattr(self._settings, name):
            self.post_message(self.SettingChanged(name, value))

    @on(Checkbox.Changed, "#notifications")
    def _notifications_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        if event.value != self._settings.notifications:
            self.post_message(self.SettingChanged("notifications", event.value))

    def saved(self, settings: Settings, where: str) -> None:
        self._settings = settings
        self._status(f"Saved to {where}.", "-ok")

    def rejected(self, message: str) -> None:
        self._status(message, "-error")

    def _status(self, message: str, kind: str) -> None:
        status = self.query_one("#settings-status", Static)
        status.update(plain(message))
        status.set_classes(kind)
