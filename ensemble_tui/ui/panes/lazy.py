"""Panes mounted after the app's first frames instead of before the first one.

The idea is `textual.lazy.Lazy`'s: a hidden placeholder that mounts the real widget in its
place later. What `Lazy` cannot do, and this does (all through public API):

- Mount on demand. `Lazy` always mounts its widget right after the first refresh. Settings
  (70 widgets, its Selects the dearest: ~200 ms) would then be mounted at every start, under
  the first keys the user types; here it is mounted only when its tab is first shown
  (`on_demand`, `mount_pane()` called by the pane switch).
- Mount when the owner says. Every `Lazy` mounts in the first refresh's callbacks, all at once,
  ahead of the footer's keys; here the app mounts one pane per refresh (`mount_pane`), after
  the frame that shows the footer's keys, so frames and typed keys keep coming between panes.
- Step aside when the app quits during the first frames: `Lazy` then ended in a MountError
  traceback.
"""

from __future__ import annotations

from textual.widget import MountError, Widget


class LazyPane(Widget):
    """A placeholder for `pane` until `mount_pane()` mounts it in its place."""

    DEFAULT_CSS = """
    LazyPane {
        display: none;
    }
    """

    def __init__(self, pane: Widget, *, on_demand: bool = False) -> None:
        """`on_demand`: mounted only when its tab is first shown, not in the background."""
        super().__init__()
        self.pane = pane
        self.on_demand = on_demand
        self._started = False

    async def mount_pane(self) -> None:
        """Mount the pane in place of this placeholder, once (later calls return at once)."""
        if self._started:
            return
        self._started = True
        parent = self.parent
        if not isinstance(parent, Widget) or not parent.is_attached:
            return  # the app is closing
        try:
            await parent.mount(self.pane, after=self)
        except MountError:  # the app began closing while this waited for its turn
            return
        await self.remove()
