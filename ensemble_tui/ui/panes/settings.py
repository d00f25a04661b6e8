"""The Settings pane: a model (and reasoning effort) per provider, the aggregator, debate rounds,
temperature, budget and notifications.

The pane only edits; it posts SettingChanged and the app saves through
`Workspace.update_settings`, then reports back with `saved()` or `rejected()`. Providers added by
configuration files get a row like the built-in three, and can be chosen as aggregator.
"""

from __future__ import annotations

import math
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.validation import Integer, Number, ValidationResult
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from ensemble_tui.core.config import PROVIDERS, MissingKey, ProviderConfig
from ensemble_tui.core.settings import Settings
from ensemble_tui.ui.chat_log.rendering import plain
from ensemble_tui.ui.panes import widget_key

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace

AGGREGATORS = PROVIDERS
SETTINGS_FILE = "Configurations/Settings.json"
EFFORTS = ("off", "low", "medium", "high")
RELEASE_HINT = (
    "Stop counting the calls of a turn cut off by a crash against the budget; "
    "if the provider billed them, the chat then shows less than was spent."
)
REASONING_HINT = "How hard the model thinks before it answers; more effort costs more output tokens."


def model_options(config: ProviderConfig, current: str) -> list[tuple[Text, str]]:
    """(label, id) pairs from the configuration; a selected model missing from it is kept."""
    options: list[tuple[Text, str]] = []
    for spec in config.models:
        label = spec.display_name if spec.display_name == spec.id else f"{spec.display_name} ({spec.id})"
        if spec.retired_by():
            label += f" - retired {spec.retired:%Y-%m-%d}"
        elif spec.retiring_by():
            label += f" - retires {spec.retired:%Y-%m-%d}" + (f", use {spec.replacement}" if spec.replacement else "")
        options.append((plain(label), spec.id))
    if config.model(current) is None:
        options.append((plain(f"{current} (not in the configuration)"), current))
    return options


def selected_id(config: ProviderConfig, current: str) -> str:
    spec = config.model(current)
    return spec.id if spec is not None else current


def aggregator_options(providers: list[str], current: str) -> list[tuple[Text, str]]:
    """Every provider may aggregate; a saved choice that is no longer configured is kept, marked."""
    options = [(plain(name), name) for name in providers]
    if current not in providers:
        options.append((plain(f"{current} (not configured)"), current))
    return options


def offers_reasoning(config: ProviderConfig | None, model: str) -> bool:
    spec = config.model(model) if config is not None else None
    return spec is not None and spec.reasoning


def missing_keys(workspace: Workspace) -> dict[str, MissingKey]:
    """The built-in providers that lack their API key, with why."""
    reasons = {name: workspace.unavailable.get(name) for name in PROVIDERS}
    return {name: reason for name, reason in reasons.items() if isinstance(reason, MissingKey)}


def no_keys_line(keyless: dict[str, MissingKey], *, demo: bool) -> str:
    """One line for the empty chat (`keyless`: missing_keys): which keys are missing, where
    they go, and how to try everything without."""
    variables = ", ".join(reason.variables[0] for reason in keyless.values())
    places = next(iter(keyless.values())).places  # one home: the same place for every key
    line = f"No API key for {', '.join(keyless)}: set {variables} {places}."
    return (
        line
        if demo or len(keyless) < len(PROVIDERS)
        else line + " `ensemble-tui --demo` tries everything with no keys."
    )


# Settings.auto_pair: who answers first in auto mode (core/turn/auto.py).
AUTO_PAIRS = [("the cheapest strong model, twice", "samples"), ("the two cheapest strong models", "two-models")]
FIELDS = {"debate-rounds": "debate_rounds", "temperature": "temperature", "budget": "budget_usd"}  # input -> setting
SAVE_DELAY_S = 0.8  # a valid value is saved once typing pauses this long (`4` on the way to `42` is not)


def typed_number(text: str) -> str:
    """The number in a field as people write it: `$10` and ` 10 ` mean 10."""
    return text.strip().removeprefix("$").strip()


class Amount(Number):
    """A number that may be written with a dollar sign, as budgets are."""

    def validate(self, value: str) -> ValidationResult:
        return super().validate(typed_number(value))


class SavesSettings(Protocol):
    """The main screen's side of a save (ui/actions/preferences.py), called directly when the pane goes away
    at quit: the message queues are closed by then, so a posted message would be lost."""

    def setting_changed(self, event: SettingsPane.SettingChanged) -> None: ...


def field_error(input_id: str) -> Static:
    """The line under a field that says why its value was refused (hidden while there is none)."""
    error = Static("", classes="setting-error", id=f"{input_id}-error")
    error.display = False
    return error


class SettingsPane(VerticalScroll):
    class SettingChanged(Message):
        """The user changed one setting; `name` is a Settings field, `value` its new value."""

        def __init__(self, name: str, value: Any) -> None:
            super().__init__()
            self.name = name
            self.value = value

    class ReleaseRequested(Message):
        """The user asks to release the chat's unconfirmed reservations (ui/actions/budget_actions.py)."""

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
        # The built-in three (even with an unusable file), then the added ones in load order.
        self.providers = [*PROVIDERS, *(label for label in configs if label not in PROVIDERS)]
        self._by_key = {widget_key(provider): provider for provider in self.providers}
        self._refused: set[str] = set()  # the fields showing a refused value
        self._unsaved: dict[str, tuple[float, Timer]] = {}  # field -> its valid value not yet saved, its timer
        self._unconfirmed: str | None = None  # the chat's unconfirmed reservations, in words; None: none

    def compose(self) -> ComposeResult:
        settings = self._settings
        for provider in self.providers:
            yield from self._provider_rows(provider)
        with Horizontal(classes="setting-row"):
            yield Label("Aggregator", classes="setting-label")
            yield Select(
                aggregator_options(self.providers, settings.aggregator),
                value=settings.aggregator,
                allow_blank=False,
                compact=True,
                id="aggregator",
                tooltip="Writes the final reply (aggregator style) or chairs the council.",
            )
        with Horizontal(classes="setting-row"):
            yield Label("Auto asks first", classes="setting-label")
            yield Select(
                AUTO_PAIRS,
                value=settings.auto_pair,
                allow_blank=False,
                compact=True,
                id="auto-pair",
                tooltip="Who answers first in Auto; the full All turn runs only if the two answers disagree. "
                '"strong" in Settings.json lists the providers it picks from.',
            )
        with Horizontal(classes="setting-row"):
            yield Label("Debate rounds (3-10)", classes="setting-label")
            yield Input(
                str(settings.debate_rounds),
                id="debate-rounds",
                compact=True,
                validators=[Integer(3, 10, failure_description="Debate rounds must be a whole number from 3 to 10.")],
                tooltip="Rounds of a debate, the first answers included.",
            )
        yield field_error("debate-rounds")
        with Horizontal(classes="setting-row"):
            yield Label("Temperature (0-2)", classes="setting-label")
            yield Input(
                str(settings.temperature),
                id="temperature",
                compact=True,
                validators=[Number(0.0, 2.0, failure_description="Temperature must be a number from 0 to 2.")],
                tooltip="Used by models that accept a temperature; others ignore it.",
            )
        yield field_error("temperature")
        with Horizontal(classes="setting-row"):
            yield Label("Budget per chat (USD)", classes="setting-label")
            yield Input(
                str(settings.budget_usd),
                id="budget",
                compact=True,
                validators=[
                    Amount(0.01, None, failure_description="The budget must be a number above 0, like 10 or $10.")
                ],
                tooltip="A run stops before a call that could take this chat past the budget.",
            )
        yield field_error("budget")
        with Horizontal(classes="setting-row", id="unconfirmed-row") as row:
            row.display = self._unconfirmed is not None
            yield Static(plain(self._unconfirmed or ""), id="unconfirmed-text", classes="setting-warning")
            yield Button("Release", id="release-unconfirmed", tooltip=RELEASE_HINT, compact=True)
        with Horizontal(classes="setting-row"):
            yield Label("Notifications", classes="setting-label")
            yield Checkbox("Notify when a reply is complete", settings.notifications, id="notifications", compact=True)
        yield Static(
            plain(f"Choices are saved at once to {SETTINGS_FILE}; a typed value once you pause or press Enter."),
            id="settings-status",
        )

    def _provider_rows(self, provider: str) -> ComposeResult:
        """The model dropdown, the reasoning effort dropdown (shown only for a model that offers
        it) and a warning when the provider cannot be used."""
        key = widget_key(provider)
        config = self._configs.get(provider)
        if config is None:  # its configuration file is unusable; the core says why
            reason = self._unavailable.get(provider, f"{provider}: configuration unusable")
            yield Static(plain(f"⚠ {reason}"), classes="setting-warning -alone", id=f"nokey-{key}")
            return
        current = self._settings.model_for(provider, self._configs)
        with Horizontal(classes="setting-row"):
            yield Label(plain(f"{provider} model"), classes="setting-label")
            yield Select(
                model_options(config, current),
                value=selected_id(config, current),
                allow_blank=False,
                compact=True,
                id=f"model-{key}",
                classes="setting-model",
            )
        if any(spec.reasoning for spec in config.models):  # else no row at all (files are read at start)
            yield from self._reasoning_row(provider, key, offers_reasoning(config, current))
        reason = self._unavailable.get(provider)
        if reason:
            yield Static(plain(f"⚠ {reason}"), classes="setting-warning", id=f"nokey-{key}")

    def _reasoning_row(self, provider: str, key: str, shown: bool) -> ComposeResult:
        with Horizontal(classes="setting-row reasoning-row", id=f"reasoning-row-{key}") as row:
            row.display = shown
            yield Label("  reasoning effort", classes="setting-label")
            yield Select(
                [(effort, effort) for effort in EFFORTS],
                value=self._settings.reasoning.get(provider, "off"),
                allow_blank=False,
                compact=True,
                id=f"reasoning-{key}",
                classes="setting-reasoning",
                disabled=not shown,
                tooltip=REASONING_HINT,
            )

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        event.stop()
        select_id = event.select.id
        if event.value is Select.NULL or select_id is None:
            return
        settings = self._settings
        if select_id == "aggregator":
            if event.value != settings.aggregator:
                self.post_message(self.SettingChanged("aggregator", event.value))
        elif select_id == "auto-pair":
            if event.value != settings.auto_pair:
                self.post_message(self.SettingChanged("auto_pair", event.value))
        elif select_id.startswith("reasoning-"):
            provider = self._by_key[select_id.removeprefix("reasoning-")]
            if event.value != settings.reasoning.get(provider, "off"):
                self.post_message(self.SettingChanged("reasoning", {**settings.reasoning, provider: event.value}))
        elif select_id.startswith("model-"):
            provider = self._by_key[select_id.removeprefix("model-")]
            if event.value != selected_id(self._configs[provider], settings.model_for(provider, self._configs)):
                self.post_message(self.SettingChanged("models", {**settings.models, provider: event.value}))

    @on(Input.Changed, "#debate-rounds, #temperature, #budget")
    def _field_changed(self, event: Input.Changed) -> None:
        """A valid value is saved once typing pauses (`4` on the way to `42` is not the user's
        value), or at once on Enter, on leaving the field or at quit; an invalid one says why at once."""
        event.stop()
        input_id = event.input.id or ""
        self._forget_unsaved(input_id)
        problem = self._problem(input_id, event.value)
        if problem is not None:
            self.rejected(problem, FIELDS[input_id])
            return
        self._field_ok(input_id)
        value = self._value(input_id, event.value)
        if value != getattr(self._settings, FIELDS[input_id]):
            self._unsaved[input_id] = (value, self.set_timer(SAVE_DELAY_S, partial(self._commit, event.input)))

    def _forget_unsaved(self, input_id: str) -> None:
        if input_id in self._unsaved:
            self._unsaved.pop(input_id)[1].stop()

    def on_unmount(self) -> None:
        """Quitting right after typing keeps the valid value typed (the fields are gone by now)."""
        host: SavesSettings | None = getattr(self.screen, "preferences", None)  # the main screen's
        for input_id, (value, timer) in self._unsaved.items():
            timer.stop()
            if host is not None:
                host.setting_changed(self.SettingChanged(FIELDS[input_id], value))
        self._unsaved.clear()

    @on(Input.Submitted, "#debate-rounds, #temperature, #budget")
    def _field_submitted(self, event: Input.Submitted) -> None:
        """Enter saves the complete value, if it is valid."""
        event.stop()
        self._commit(event.input)

    @on(Input.Blurred, "#debate-rounds, #temperature, #budget")
    def _field_left(self, event: Input.Blurred) -> None:
        """Leaving a field saves its value if valid; a refused one gives way to the value in force."""
        self._commit(event.input)
        input_id = event.input.id or ""
        if input_id in self._refused:
            event.input.value = self._in_force(input_id)
            self._field_ok(input_id)

    def _commit(self, field: Input) -> None:
        """Save the field's whole value, or show why it is refused and save nothing."""
        input_id = field.id or ""
        self._forget_unsaved(input_id)
        name = FIELDS[input_id]
        problem = self._problem(input_id, field.value)
        if problem is not None:
            self.rejected(problem, name)
            return
        self._field_ok(input_id)
        value = self._value(input_id, field.value)
        if value != getattr(self._settings, name):
            self.post_message(self.SettingChanged(name, value))

    def _problem(self, input_id: str, text: str) -> str | None:
        """Why `text` cannot be saved in the field, or None if it can."""
        field = self.query_one(f"#{input_id}", Input)
        result = field.validate(text)
        if result is not None and not result.is_valid:
            return result.failure_descriptions[0]
        if not math.isfinite(float(typed_number(text))):
            return "Enter a finite number."
        return None

    @staticmethod
    def _value(input_id: str, text: str) -> float:
        """The setting a valid field's text stands for."""
        number = typed_number(text)
        return int(number) if FIELDS[input_id] == "debate_rounds" else float(number)

    def _in_force(self, input_id: str) -> str:
        return str(getattr(self._settings, FIELDS[input_id]))

    def _field_ok(self, input_id: str) -> None:
        self._refused.discard(input_id)
        error = self.query_one(f"#{input_id}-error", Static)
        error.display = False

    def show_unconfirmed(self, phrase: str | None) -> None:
        """Offer the release while the chat holds unconfirmed reservations (`phrase` says how much)."""
        self._unconfirmed = phrase
        for row in self.query("#unconfirmed-row"):  # none before the pane is first shown
            row.display = phrase is not None
            self.query_one("#unconfirmed-text", Static).update(plain(phrase or ""))

    @on(Button.Pressed, "#release-unconfirmed")
    def _release_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.ReleaseRequested())

    @on(Checkbox.Changed, "#notifications")
    def _notifications_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        if event.value != self._settings.notifications:
            self.post_message(self.SettingChanged("notifications", event.value))

    def saved(self, settings: Settings, where: str) -> None:
        self._settings = settings
        self._show_reasoning_rows()
        self._status(f"Saved to {where}.", "-ok")

    def _show_reasoning_rows(self) -> None:
        """After a model change: offer the effort only where the newly selected model has one."""
        for provider in self.providers:
            key = widget_key(provider)
            config = self._configs.get(provider)
            if config is None or not self.query(f"#reasoning-row-{key}"):
                continue
            reasoning = offers_reasoning(config, self._settings.model_for(provider, self._configs))
            self.query_one(f"#reasoning-row-{key}").display = reasoning
            self.query_one(f"#reasoning-{key}", Select).disabled = not reasoning

    def rejected(self, message: str, name: str | None = None) -> None:
        """A value was refused: under its field if it has one (each field its own line), else in
        the pane's status line."""
        input_id = next((key for key, field in FIELDS.items() if field == name), None)
        if input_id is None:
            self._status(message, "-error")
            return
        self._refused.add(input_id)
        error = self.query_one(f"#{input_id}-error", Static)
        error.update(plain(f"✖ {message} Nothing is saved; the value in force is {self._in_force(input_id)}."))
        error.display = True
        self.call_after_refresh(self.scroll_to_widget, error, animate=False)  # at 80x24 it fell below the view

    def _status(self, message: str, kind: str) -> None:
        for status in self.query("#settings-status").results(Static):  # none left once quitting
            status.update(plain(message))
            status.set_classes(kind)
