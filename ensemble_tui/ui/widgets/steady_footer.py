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

from textual.widgets import Footer


class SteadyFooter(Footer):
    """A Footer whose recompose is skipped when it would draw the same keys (through the public
    `recompose`, `Screen.active_bindings` and `App.get_key_display`, the inputs of Footer's own
    `compose`)."""

    _drawn: tuple[object, ...] | None = None  # the keys of the last compose that had any

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
