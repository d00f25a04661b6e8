"""Settings changed in the Settings pane, and the theme chosen in the palette: validated, saved
to Settings.json, and shown in force. A collaborator of EnsembleApp."""

from __future__ import annotations

import logging
from typing import Protocol

from textual.theme import Theme

from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.panes.model import ModelPane
from ensemble_tui.ui.panes.settings import SETTINGS_FILE, SettingsPane

log = logging.getLogger(__name__)


class PreferencesHost(Protocol):
    """What saving a setting needs of the app."""

    workspace: Workspace

    @property
    def settings_pane(self) -> SettingsPane: ...
    @property
    def model_providers(self) -> tuple[str, ...]: ...
    def model_pane(self, provider: str) -> ModelPane: ...
    def model_line(self, provider: str) -> tuple[str, str | None]: ...


class Preferences:
    def __init__(self, host: PreferencesHost) -> None:
        self.host = host

    def setting_changed(self, event: SettingsPane.SettingChanged) -> None:
        host = self.host
        pane = host.settings_pane
        try:
            settings = host.workspace.update_settings(**{event.name: event.value})
        except (ValueError, OSError) as exc:
            errors = getattr(exc, "errors", None)
            reason = errors()[0]["msg"] if callable(errors) else str(exc)
            pane.rejected(f"Not saved: {reason}", event.name)
            return
        pane.saved(settings, SETTINGS_FILE)
        if event.name == "models":
            for provider in host.model_providers:
                model_pane = host.model_pane(provider)
                model_pane.show(model_pane.output, *host.model_line(provider))

    def theme_changed(self, theme: Theme) -> None:
        """A theme chosen in the palette is kept in Settings.json for the next start."""
        if theme.name != self.host.workspace.settings.theme:
            try:
                self.host.workspace.update_settings(theme=theme.name)
            except (ValueError, OSError) as exc:
                log.warning("cannot save the theme: %s", exc)
