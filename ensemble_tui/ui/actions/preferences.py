"""Settings changed in the Settings pane, and the theme chosen in the palette: validated, saved
to Settings.json, and shown in force. A collaborator of the main screen (ui/main_screen.py)."""

from __future__ import annotations

import logging

from textual.theme import Theme

from ensemble_tui.ui.actions.context import AppContext, model_line
from ensemble_tui.ui.panes.settings import SETTINGS_FILE, SettingsPane

log = logging.getLogger(__name__)


class Preferences:
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    def setting_changed(self, event: SettingsPane.SettingChanged) -> None:
        ctx = self.ctx
        pane = ctx.view.settings
        try:
            settings = ctx.workspace.update_settings(**{event.name: event.value})
        except (ValueError, OSError) as exc:
            errors = getattr(exc, "errors", None)
            reason = errors()[0]["msg"] if callable(errors) else str(exc)
            pane.rejected(f"Not saved: {reason}", event.name)
            return
        pane.saved(settings, SETTINGS_FILE)
        if event.name == "models":
            for provider in ctx.view.model_providers:
                model_pane = ctx.view.model_pane(provider)
                model_pane.show(model_pane.output, *model_line(ctx.workspace, provider))

    def theme_changed(self, theme: Theme) -> None:
        """A theme chosen in the palette is kept in Settings.json for the next start."""
        if theme.name != self.ctx.workspace.settings.theme:
            try:
                self.ctx.workspace.update_settings(theme=theme.name)
            except (ValueError, OSError) as exc:
                log.warning("cannot save the theme: %s", exc)
