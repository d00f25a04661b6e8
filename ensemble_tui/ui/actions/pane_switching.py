"""Switching panes and moving the focus with them, and scrolling the chat from the question box:
a collaborator of the main screen (ui/main_screen.py)."""

from __future__ import annotations

from ensemble_tui.ui.actions.context import AppContext
from ensemble_tui.ui.panes import panes


class PaneSwitching:
    """Ctrl+PageUp/PageDown, the palette's pane entries, a click on a tab, and showing a pane from code."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    def cycle(self, step: int) -> None:
        tabs = self.ctx.view.tabs
        ids = [pane_id for pane_id, _label in panes(self.ctx.workspace.extra_providers)]
        current = ids.index(tabs.active) if tabs.active in ids else 0
        self.show(ids[(current + step) % len(ids)])

    def show(self, pane_id: str) -> None:
        """Switch panes (a key, the palette, code) and move the focus into the new one."""
        ctx = self.ctx
        if ctx.view.tabs.active == pane_id:
            return
        ctx.view.tabs.active = pane_id
        self.shown(pane_id)

    def shown(self, pane_id: str) -> None:
        """A pane has just been shown, by `show()` or by a click on its tab: mount it if this is
        its first showing, and move the focus into it.

        Focus must move too: when the focused widget is hidden, Textual hands focus to a
        neighbour, and TabbedContent re-activates whichever pane that neighbour is in. A pane
        shown for the first time takes the focus once mounted; until then nothing is focused,
        so Textual cannot switch back to the pane of a focused neighbour. Called twice for one
        showing (show(), then its TabActivated message), it acts once.
        """
        ctx = self.ctx
        placeholder = ctx.view.lazy.get(pane_id)
        if placeholder is not None and not placeholder.pane.is_mounted:
            if placeholder.request_mount():
                ctx.app.set_focus(None)
                placeholder.pane.call_later(self._focus_pane, pane_id)  # a widget's callbacks run after its Mount
            return
        self._focus_pane(pane_id)

    def _focus_pane(self, pane_id: str) -> None:
        """Focus the first focusable widget of the pane shown (if it is still the one shown).

        At once (`App.set_focus`), not through `Widget.focus()`, which queues the change: a key
        that showed another pane meanwhile (Ctrl+PageUp twice, under load) saw its pane replaced
        by this one, as the late focus landed in a hidden pane and TabbedContent shows the pane
        that holds the focus."""
        tabs = self.ctx.view.tabs
        if tabs.active != pane_id:
            return
        pane = tabs.get_pane(pane_id)
        target = (
            self.ctx.view.chat.input
            if pane_id == "chat"
            else next((widget for widget in pane.query("*") if widget.focusable), None)
        )
        self.ctx.app.set_focus(target, scroll_visible=False)

    def scroll_chat(self, where: str) -> None:
        """PageUp/PageDown and Ctrl+Home/Ctrl+End in the question box move through the chat."""
        log = self.ctx.view.chat.log_view
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
