"""A pane mounted when it is first shown, not with the app.

The idea is `textual.lazy.Lazy`'s: a hidden placeholder that mounts the real widget in its
place later. What `Lazy` cannot do, and this does (all through public API):

- Mount on demand. `Lazy` always mounts its widget right after the first refresh, so every
  pane (Settings alone is 70 widgets, its Selects the dearest: ~200 ms) would be composed and
  styled at every start, under the first keys the user types, for panes most sessions never
  open. Here a pane is mounted when its tab is first shown (`request_mount()`, called by the
  pane switch, whether a key, the palette or a click on the tab showed it).
- Step aside when the app quits while a mount waits: `Lazy` then ended in a MountError
  traceback.
"""

from __future__ import annotations

from textual.widget import MountError, Widget


class LazyPane(Widget):
    """A placeholder for `pane` until `request_mount()` mounts it in its place."""

    DEFAULT_CSS = """
    LazyPane {
        display: none;
    }
    """

    def __init__(self, pane: Widget) -> None:
        super().__init__()
        self.pane = pane
        self.requested = False  # request_mount() has been called: mounted, or on its way

    def request_mount(self) -> bool:
        """Mount the pane in place of this placeholder once the current message is handled;
        True the first time, False (and nothing done) after that."""
        if self.requested:
            return False
        self.requested = True
        self.call_later(self._mount_pane)
        return True

    async def _mount_pane(self) -> None:
        parent = self.parent
        if not isinstance(parent, Widget) or not parent.is_attached:
            return  # the app is closing
        try:
            await parent.mount(self.pane, after=self)
        except MountError:  # the app began closing while this waited for its turn
            return
        await self.remove()
