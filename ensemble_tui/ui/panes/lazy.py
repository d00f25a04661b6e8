"""Panes mounted after the app's first frames instead of before the first one.

The idea is `textual.lazy.Lazy`'s: a hidden placeholder that mounts the real widget in its
place later. It differs in two ways that matter at start-up:

- `Lazy` mounts every placeholder in the first refresh's callbacks, all at once. That batch ran
  ahead of the Footer's first compose, so the first complete frame (the footer's keys) waited
  for every hidden pane, Settings included. Here the owner decides when: the app mounts one
  pane per refresh (`mount_pane`), so frames, the footer's and typed keys keep coming between.
- `Lazy` does not check that the app is still there, so quitting during the first frame ended
  in a MountError traceback; `mount_pane` steps aside quietly instead.
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
