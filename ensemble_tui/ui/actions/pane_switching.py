"""Switching panes and moving the focus with them, and scrolling the chat from the question box:
a collaborator of EnsembleApp."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from textual.widget import Widget
from textual.widgets import TabbedContent

from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.panes import panes
from ensemble_tui.ui.panes.chat import ChatPane
from ensemble_tui.ui.panes.lazy import LazyPane


class PaneHost(Protocol):
    """What switching panes needs of the app."""

    workspace: Workspace

    @property
    def tabs(self) -> TabbedContent: ...
    @property
    def chat(self) -> ChatPane: ...
    @property
    def lazy_panes(self) -> Mapping[str, LazyPane]: ...
    def set_focus(self, widget: Widget | None) -> None: ...
    def call_later(self, callback: Callable[..., Any], *args: Any) -> bool: ...


class PaneSwitching:
    """Ctrl+PageUp/PageDown, the palette's pane entries, and showing a pane from code."""

    def __init__(self, host: PaneHost) -> None:
        self.host = host

    def cycle(self, step: int) -> None:
        tabs = self.host.tabs
        ids = [pane_id for pane_id, _label in panes(self.host.workspace.extra_providers)]
        current = ids.index(tabs.active) if tabs.active in ids else 0
        self.show(ids[(current + step) % len(ids)])

    def show(self, pane_id: str) -> None:
        """Switch panes and move the focus into the new one.

        Focus must move too: when the focused widget is hidden, Textual hands focus to a
        neighbour, and TabbedContent re-activates whichever pane that neighbour is in. A pane
        still waiting for its lazy mount (the first moments after start, or Settings until it
        is first shown) takes the focus once mounted.
        """
        host = self.host
        if host.tabs.active == pane_id:
            return
        host.tabs.active = pane_id
        placeholder = host.lazy_panes.get(pane_id)
        if placeholder is not None and not placeholder.pane.is_mounted:
            # Mount it now (ahead of its turn, or on demand) and focus it once mounted: a
            # callback queued on a widget runs after its Mount. Until then nothing is focused,
            # so Textual cannot switch back to the pane of a focused neighbour.
            host.set_focus(None)
            host.call_later(placeholder.mount_pane)
            placeholder.pane.call_later(self._focus_pane, pane_id)
            return
        self._focus_pane(pane_id)

    def _focus_pane(self, pane_id: str) -> None:
        """Focus the first focusable widget of the pane shown (if it is still the one shown)."""
        tabs = self.host.tabs
        if tabs.active != pane_id:
            return
        pane = tabs.get_pane(pane_id)
        target = (
            self.host.chat.input
            if pane_id == "chat"
            else next((widget for widget in pane.query("*") if widget.focusable), None)
        )
        if target is not None:
            target.focus(scroll_visible=False)
        else:
            self.host.set_focus(None)

    def scroll_chat(self, where: str) -> None:
        """PageUp/PageDown and Ctrl+Home/Ctrl+End in the question box move through the chat."""
        log = self.host.chat.log_view
        if where == "end":
            log.scroll_end(animate=False)
            log.anchor()  # new entries keep it at the end again
            return
        log.release_anchor()
        if where == "home":
            log.scroll_home(animate=False)
        elif where == "page_up":
            log.scroll_page_up(animate=False)
        else:
            log.scroll_page_down(animate=False)
