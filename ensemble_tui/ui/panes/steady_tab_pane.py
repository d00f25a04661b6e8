"""A TabPane that does not bring itself back for a focus it no longer holds.

Textual's TabPane tells its TabbedContent when a widget inside it takes the focus, and the
TabbedContent then shows that pane: the message is handled later, in the TabbedContent's queue.
When the user switched panes twice in a row (Ctrl+PageUp twice), the first pane's focus had
moved on by then, yet its late message showed the first pane again, over the second.
"""

from __future__ import annotations

from textual import on
from textual.widgets import TabPane


class SteadyTabPane(TabPane):
    """A TabPane whose "a widget in me was focused" reaches its TabbedContent only while the
    focus is still inside it."""

    @on(TabPane.Focused)
    def _drop_a_focus_gone_elsewhere(self, event: TabPane.Focused) -> None:
        focused = self.app.focused
        if focused is None or self not in focused.ancestors_with_self:
            event.stop()
