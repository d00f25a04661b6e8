"""Textual's Footer, rebuilt only when the keys it shows change.

Textual's Footer recomposes after every bindings signal: it removes and mounts its dozen key
widgets, and their new sizes take two layout passes of the whole screen. A signal comes with
every focus change and every `refresh_bindings()`, and the app refreshes the bindings when a
turn starts and ends (`mark_actions`: Cancel is on only during a run), though none of the keys
the footer shows changes then. Profiled on bench row 3 (a reply at 50 turns): two recomposes
and four of the seven layout passes of each reply, ~40 % of the event loop's CPU between Enter
and the reply's first frame.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer


class SteadyFooter(Footer):
    """A Footer whose recompose is skipped when it would draw the same keys (through the public
    `recompose`, `Screen.active_bindings` and `App.get_key_display`, the inputs of Footer's own
    `compose`)."""

    _drawn: tuple[object, ...] | None = None  # the keys of the last compose that had any

    def compose(self) -> ComposeResult:
        """The keys from the first compose, so the app's first frame shows them. Textual's Footer
        composes nothing until the screen's first bindings signal, then recomposes after a
        refresh: its keys came two frames after the rest of the screen, each frame a layout of
        the whole screen (31 + 23 ms of CPU at start-up, profiled at load 10), and eight restyles
        of their own. The bindings are known once the footer is mounted; `bindings_changed`
        is Footer's public handler of that signal: it marks the bindings ready, then queues the
        recompose the signal would have, which `recompose` below skips when nothing changed (the
        focused widget's keys arrive with their own signal, and change the keys only if they
        differ)."""
        if self._drawn is None and self.is_attached:
            self.bindings_changed(self.screen)
            self._drawn = self.keys_to_draw()
        yield from super().compose()

    async def recompose(self) -> None:
        keys = self.keys_to_draw()
        if keys == self._drawn and self.children:
            return
        self._drawn = keys
        await super().recompose()

    def keys_to_draw(self) -> tuple[object, ...]:
        """What Footer.compose draws from: each shown binding (and the palette's) with whether it
        is enabled, its tooltip and its key as displayed."""
        app = self.app
        return (
            self.show_command_palette,
            *(
                (key, binding.key, binding.action, binding.description, binding.group, enabled, tooltip)
                + (app.get_key_display(binding),)
                for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items()
                if binding.show or key == app.COMMAND_PALETTE_BINDING
            ),
        )
