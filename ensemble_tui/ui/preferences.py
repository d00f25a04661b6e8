"""Settings changed in the Settings pane, and the theme chosen in the palette: validated, saved
to Settings.json, and shown in force. A mixin of EnsembleApp."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ensemble_tui.ui.panes.settings import SETTINGS_FILE, SettingsPane

if TYPE_CHECKING:
    from textual.app import App
    from textual.theme import Theme

    from ensemble_tui.core.workspace import Workspace
    from ensemble_tui.ui.panes.model import ModelPane

    _Base = App[int]
else:
    _Base = object

log = logging.getLogger(__name__)


class Preferences(_Base):
    if TYPE_CHECKING:  # provided by EnsembleApp
        workspace: Workspace

        @property
        def settings_pane(self) -> SettingsPane: ...
        @property
        def model_providers(self) -> tuple[str, ...]: ...
        def model_pane(self, provider: str) -> ModelPane: ...
        def _model_line(self, provider: str) -> tuple[str, str | None]: ...

    def on_settings_pane_setting_changed(self, event: SettingsPane.SettingChanged) -> None:
        pane = self.settings_pane
        try:
            settings = self.workspace.update_settings(**{event.name: event.value})
        except (ValueError, OSError) as exc:
            errors = getattr(exc, "errors", None)
            reason = errors()[0]["msg"] if callable(errors) else str(exc)
            pane.rejected(f"Not saved: {reason}", event.name)
            return
        pane.saved(settings, SETTINGS_FILE)
        if event.name == "models":
            for provider in self.model_providers:
                pane = self.model_pane(provider)
                pane.show(pane.output, *self._model_line(provider))

    def _theme_changed(self, theme: Theme) -> None:
        """A theme chosen in the palette is kept in Settings.json for the next start."""
        if theme.name != self.workspace.settings.theme:
            try:
                self.workspace.update_settings(theme=theme.name)
            except (ValueError, OSError) as exc:
                log.warning("cannot save the theme: %s", exc)
