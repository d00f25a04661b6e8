"""The key footer, rebuilt once per burst of binding changes instead of once per change.

Textual's Footer recomposes (removes and mounts a dozen key widgets, 10-25 ms here) after every
bindings signal, and a signal comes with each focus change and each `refresh_bindings()`: five
of them before the first complete frame at start-up, two around every turn (the Cancel key comes
and goes). The footer shows the bindings as they are when it recomposes, so a signal that
arrives while a recompose is already queued adds nothing; KeyFooter drops it.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """A Footer that queues at most one recompose at a time (Textual 8.2's Footer queues one
    per signal, with `call_after_refresh(self.recompose)` in `bindings_changed`)."""

    _recompose_queued = False

    def bindings_changed(self, screen: Screen) -> None:
        if self._recompose_queued and screen is self.screen:
            return  # the queued recompose will read the bindings as they are then
        super().bindings_changed(screen)
        # The conditions under which Footer queues a recompose; otherwise nothing is queued.
        self._recompose_queued = screen.app.app_focus and self.is_attached and screen is self.screen

    async def recompose(self) -> None:
        self._recompose_queued = False  # a signal from now on may need a later recompose
        await super().recompose()
