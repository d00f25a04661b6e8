"""What the main screen's collaborators are given: one small context, not a Protocol mirroring the app.

A collaborator (the turn and its keys, PDF, panes, settings, archive, replies, restyle) reaches
Textual through the app's own public API (screens, toasts, workers, focus, clipboard, links, the
widget under the mouse), the workspace it acts on, the keymap loaded once, the main screen's
panes, and the screen's two ways of answering the user. What only one collaborator needs (the
engine, the notifier, the folder opener, another collaborator) is passed to that one alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from textual.app import App
from textual.widgets import TabbedContent

from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.chat_log.chat_view import NoticeKind
from ensemble_tui.ui.panes.attachments import AttachmentsPane
from ensemble_tui.ui.panes.chat import ChatPane
from ensemble_tui.ui.panes.lazy import LazyPane
from ensemble_tui.ui.panes.model import ModelPane
from ensemble_tui.ui.panes.resubmissions import ResubmissionsPane
from ensemble_tui.ui.panes.settings import SettingsPane


@dataclass
class MainPanes:
    """The main screen's panes, made once in the main screen's compose() and never replaced. Those behind
    tabs are mounted lazily (ui/panes/lazy.py), so they are kept here rather than queried."""

    chat: ChatPane
    tabs: TabbedContent
    attachments: AttachmentsPane
    resubmissions: ResubmissionsPane
    settings: SettingsPane
    models: dict[str, ModelPane]  # by provider: the built-in three, then the added ones
    lazy: Mapping[str, LazyPane] = field(default_factory=dict)  # TabPane id -> its placeholder

    @property
    def model_providers(self) -> tuple[str, ...]:
        return tuple(self.models)

    def model_pane(self, provider: str) -> ModelPane:
        """`provider`'s pane, mounted or not yet (KeyError for a provider without one)."""
        return self.models[provider]


def model_line(workspace: Workspace, provider: str) -> tuple[str, str | None]:
    """The model a pane names, and why its provider is unavailable (if it is)."""
    return workspace.model_for(provider), workspace.unavailable.get(provider)


@dataclass
class AppContext:
    """One per app, made with its main screen. `panes` is set by the main screen's compose(),
    before any collaborator acts."""

    app: App[Any]  # Textual's public API only
    workspace: Workspace
    keymap: Mapping[str, str]  # Configurations/Keymap.json, read once (ui/bindings.py names keys through it)
    say: Callable[[str], None]  # the answer to something the user did (MainScreen.say)
    add_notice: Callable[[str, NoticeKind], None]  # a line in the chat
    show_pane: Callable[[str], None]  # switch panes, the focus with it
    panes: MainPanes | None = None

    @property
    def view(self) -> MainPanes:
        assert self.panes is not None, "the panes are made in the main screen's compose()"
        return self.panes
