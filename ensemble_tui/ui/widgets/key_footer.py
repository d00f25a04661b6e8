"""The key footer, rebuilt only when the keys it shows change.

Textual's Footer recomposes (removes and mounts a dozen key widgets, then a layout pass of the
whole screen: 10-35 ms here) after every bindings signal, and a signal comes with each focus
change and each `refresh_bindings()`: five of them before the first complete frame at start-up,
two around every turn. Most change nothing the footer shows. KeyFooter composes its keys with
itself, queues at most one recompose at a time (a signal that arrives while one is queued adds
nothing: the recompose reads the bindings as they are then), and skips a recompose that would
show the same keys.

On a narrow screen it shows the keys that matter most and leaves out the others whole (`fit`),
rather than cutting the last one mid-word: the mode keys and the PDF first, then History,
Report and New chat (all of them are in the palette, whose key is always shown).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported by textual.widgets; the keys' widget

# The actions whose keys are kept longest when the footer is too narrow, most important first;
# keys of other actions come after these, in the order shown.
KEY_PRIORITY: tuple[str, ...] = (
    "send('all')",
    "select_pdf",
    "send('chatgpt')",
    "send('claude')",
    "send('gemini')",
    "send('chatgpt-gemini')",
    "show_history",
    "show_report",
    "new_chat",
)


def fit(widths: Sequence[int], ranks: Sequence[int], room: int) -> list[bool]:
    """Which keys to show: the best ranked first, each that still fits in `room` cells."""
    shown = [False] * len(widths)
    for index in sorted(range(len(widths)), key=lambda i: (ranks[i], i)):
        if widths[index] <= room:
            shown[index] = True
            room -= widths[index]
    return shown


def rank(action: str) -> int:
    return KEY_PRIORITY.index(action) if action in KEY_PRIORITY else len(KEY_PRIORITY)


class KeyFooter(Footer):
    """A Footer that recomposes once per burst of binding signals, and only for a change (Textual
    8.2's Footer queues `call_after_refresh(self.recompose)` in `bindings_changed`, per signal)."""

    _recompose_queued = False
    _shown: tuple[Any, ...] | None = None  # the keys of the last compose
    keys_drawn = False  # whether a frame has drawn the keys: the app's first complete frame

    def compose(self) -> ComposeResult:
        """The keys from the start, so the app's first frame is complete. Textual's Footer
        composes nothing until the first bindings signal and then recomposes after a refresh:
        the keys came two frames after the rest of the screen (45 ms of start-up). The bindings
        are known once the footer is mounted (the app's and the screen's; the focused widget's
        arrive with their signal, and change what is shown only if they differ).
        `_bindings_ready` is Footer's own flag for that; there is no public way to set it. A
        recompose has set `_shown` already."""
        if not self._bindings_ready:  # the first compose, as the footer mounts
            self._bindings_ready = True
            self._shown = self._keys_shown()
        yield from super().compose()

    def on_mount(self) -> None:
        super().on_mount()
        self.fit_keys()
        if self._shown is not None:
            self.call_after_refresh(self._keys_were_drawn)

    def on_resize(self, event: events.Resize) -> None:
        self.fit_keys()

    def fit_keys(self) -> None:
        """Show the keys that fit beside the palette's key, by rank (KEY_PRIORITY)."""
        keys = [child for child in self.children if isinstance(child, FooterKey)]
        palette = [key for key in keys if key.has_class("-command-palette")]
        keys = [key for key in keys if key not in palette]
        room = (self.size.width or self.app.size.width) - sum(map(key_width, palette))
        shown = fit([key_width(key) for key in keys], [rank(key.action) for key in keys], room)
        for key, fits in zip(keys, shown, strict=True):
            key.display = fits

    def bindings_changed(self, screen: Screen) -> None:
        if self._recompose_queued and screen is self.screen:
            return  # the queued recompose will read the bindings as they are then
        super().bindings_changed(screen)
        # The conditions under which Footer queues a recompose; otherwise nothing is queued.
        self._recompose_queued = screen.app.app_focus and self.is_attached and screen is self.screen

    async def recompose(self) -> None:
        self._recompose_queued = False  # a signal from now on may need a later recompose
        shown = self._keys_shown()
        if shown is not None and shown == self._shown and self.children:
            return
        self._shown = shown
        await super().recompose()
        self.fit_keys()
        if shown is not None and not self.keys_drawn:
            self.call_after_refresh(self._keys_were_drawn)

    def _keys_were_drawn(self) -> None:
        self.keys_drawn = True

    def _keys_shown(self) -> tuple[Any, ...] | None:
        """What `Footer.compose` draws from: each shown binding with its state and key display
        (None before the bindings are ready, when the footer shows nothing)."""
        if not self._bindings_ready or not self.is_attached:
            return None
        return tuple(
            (binding.key, binding.action, binding.description, binding.group, enabled, tooltip)
            + (self.app.get_key_display(binding),)
            for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items()
            if binding.show or key == self.app.COMMAND_PALETTE_BINDING
        )


def key_width(key: FooterKey) -> int:
    """The cells a key takes in the footer: its text, padding, border and margins."""
    return key.render().cell_len + key.styles.gutter.width + key.styles.margin.width
