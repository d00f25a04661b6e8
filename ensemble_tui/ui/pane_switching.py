"""Switching panes and moving the focus with them: a mixin of EnsembleApp."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ensemble_tui.ui.panes import panes

if TYPE_CHECKING:
    from textual.app import App
    from textual.widgets import TabbedContent

    from ensemble_tui.core.workspace import Workspace
    from ensemble_tui.ui.panes.chat import ChatPane
    from ensemble_tui.ui.panes.lazy import LazyPane

    _Base = App[int]
else:
    _Base = object



class PaneSwitching(_Base):
    """Ctrl+PageUp/PageDown, the palette's pane entries, and showing a pane from code."""

    if TYPE_CHECKING:  # provided by EnsembleApp
        workspace: Workspace
        _lazy_panes: dict[str, LazyPane]

        @property
        def tabs(self) -> TabbedContent: ...
        @property
        def chat(self) -> ChatPane: ...

    def action_show_pane(self, pane_id: str) -> None:
        self.show_pane(pane_id)

    def action_cycle_pane(self, step: int) -> None:
        ids = [pane_id for pane_id, _label in panes(self.workspace.extra_providers)]
        current = ids.index(self.tabs.active) if self.tabs.active in ids else 0
        self.show_pane(ids[(current + step) % len(ids)])

    def show_pane(self, pane_id: str) -> None:
        """Switch panes and move the focus into the new one.

        Focus must move too: when the focused widget is hidden, Textual hands focus to a
        neighbour, and TabbedContent re-activates whichever pane that neighbour is in. A pane
        still waiting for its lazy mount (the first moments after start, or Settings until it
        is first shown) takes the focus once mounted.
        """
        if self.tabs.active == pane_id:
            return
        self.tabs.active = pane_id
        placeholder = self._lazy_panes.get(pane_id)
        if placeholder is not None and not placeholder.pane.is_mounted:
            # Mount it now (ahead of its turn, or on demand) and focus it once mounted: a
            # callback queued on a widget runs after its Mount. Until then nothing is focused,
            # so Textual cannot switch back to the pane of a focused neighbour.
            self.set_focus(None)
            self.call_later(placeholder.mount_pane)
            placeholder.pane.call_later(self._focus_pane, pane_id)
            return
        self._focus_pane(pane_id)

    def _focus_pane(self, pane_id: str) -> None:
        """Focus the first focusable widget of the pane shown (if it is still the one shown)."""
        if self.tabs.active != pane_id:
            return
        pane = self.tabs.get_pane(pane_id)
        target = (
            self.chat.input
            if pane_id == "chat"
            else next((widget for widget in pane.query("*") if widget.focusable), None)
        )
        if target is not None:
            target.focus(scroll_visible=False)
        else:
            self.set_focus(None)

