"""Textual's Footer, rebuilt only when the keys it shows change, and fitted to narrow terminals.

Textual's Footer recomposes after every bindings signal: it removes and mounts its dozen key
widgets, and their new sizes take two layout passes of the whole screen. A signal comes with
every focus change and every `refresh_bindings()`, and the app refreshes the bindings when a
turn starts and ends (`mark_actions`: Cancel is on only during a run), though none of the keys
the footer shows changes then. Profiled on bench row 3 (a reply at 50 turns): two recomposes
and four of the seven layout passes of each reply, ~40 % of the event loop's CPU between Enter
and the reply's first frame.

Footer scrolls its keys sideways under the palette key, which is docked right: at 60 columns
it ended `^f ▏^p paletteH`, a cut key and a stray letter of the next (issue 35). Where the keys
do not fit, the footer leaves out keys from the right until the rest fits beside the palette
key; Quit and F1 (help, which lists every key) stay.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import ActiveBinding
from textual.widgets import Footer

Bindings = dict[str, ActiveBinding]  # Screen.active_bindings: key -> its binding, node and state

PALETTE_CLASS = "-command-palette"  # Footer's class for the palette key, docked right


def key_width(display: str, description: str, *, compact: bool) -> int:
    """The cells a key takes in the footer (Footer's CSS: the padding and margins of each style)."""
    display_cells, description_cells = cell_len(display), cell_len(description)
    if compact:
        return display_cells + (1 + description_cells if description else 0) + 1  # margin-right 1
    return display_cells + 2 + (description_cells + 1 if description else 0)


class SteadyFooter(Footer):
    """A Footer whose recompose is skipped when it would draw the same keys (through the public
    `recompose`, `Screen.active_bindings` and `App.get_key_display`, the inputs of Footer's own
    `compose`), and which shows only the keys that fit its width."""

    _drawn: tuple[object, ...] | None = None  # the keys of the last compose that had any

    async def recompose(self) -> None:
        keys = self.keys_to_draw()
        if keys == self._drawn and self.children:
            return
        self._drawn = keys
        await super().recompose()

    def on_resize(self, event: events.Resize) -> None:
        """A new width may fit more keys, or fewer."""
        self.call_after_refresh(self.recompose)

    def shown_keys(self, bindings: Bindings) -> list[tuple[str, str]]:
        """Each key Footer.compose draws left of the palette key, in its order: (key as
        displayed, description), one per action as Footer draws them. `bindings` is the screen's
        active bindings, read once by the caller: each reading asks every binding's
        `check_action` again (about 25 of them), and a recompose read them nine times."""
        app, seen = self.app, set()
        keys: list[tuple[str, str]] = []
        for _node, binding, _enabled, _tooltip in bindings.values():
            if binding.show and binding.action not in seen:
                seen.add(binding.action)
                keys.append((app.get_key_display(binding), binding.description))
        return keys

    def compose(self) -> ComposeResult:
        """The keys from the first compose, so the app's first frame shows them. Textual's Footer
        composes nothing until the screen's first bindings signal, then recomposes after a
        refresh: its keys came two frames after the rest of the screen, each frame a layout of
        the whole screen (31 + 23 ms of CPU at start-up, profiled at load 10), and eight restyles
        of their own. The bindings are known once the footer is mounted; `bindings_changed`
        is Footer's public handler of that signal: it marks the bindings ready, then queues the
        recompose the signal would have, which `recompose` below skips when nothing changed (the
        focused widget's keys arrive with their own signal, and change the keys only if they
        differ). Where the keys do not fit the width, those on the right are left out (Quit and
        F1 stay)."""
        if self._drawn is None and self.is_attached:
            self.bindings_changed(self.screen)
            self._drawn = self.keys_to_draw()
        widgets = list(super().compose())
        palette = [widget for widget in widgets if widget.has_class(PALETTE_CLASS)]
        keys = [widget for widget in widgets if widget not in palette]
        bindings = self.screen.active_bindings
        shown = self.shown_keys(bindings)
        if len(shown) != len(keys):  # grouped keys: as Footer draws them
            yield from widgets
            return
        yield from (*keys[: self.fitting(shown, bindings)], *palette)

    def fitting(self, shown: list[tuple[str, str]], bindings: Bindings) -> int:
        """How many of the `shown` keys fit left of the palette key: all of them until the footer
        has a width (so a resize that changes nothing recomposes nothing), else the most from
        the left that fit (the rightmost go first; Quit and Help stay)."""
        if not self.size.width:
            return len(shown)
        compact = self.compact
        palette = bindings.get(self.app.COMMAND_PALETTE_BINDING) if self.show_command_palette else None
        room = self.size.width
        if palette is not None:  # + 2: the palette key's border and padding
            room -= (
                key_width(self.app.get_key_display(palette.binding), palette.binding.description, compact=compact) + 2
            )
        count = len(shown)
        while count > 2 and sum(key_width(*size, compact=compact) for size in shown[:count]) > room:
            count -= 1
        return count

    def keys_to_draw(self) -> tuple[object, ...]:
        """What Footer.compose draws from: each shown binding (and the palette's) with whether it
        is enabled, its tooltip and its key as displayed, and how many of them fit the width."""
        app = self.app
        bindings = self.screen.active_bindings
        return (
            self.fitting(self.shown_keys(bindings), bindings),
            self.show_command_palette,
            *(
                (key, binding.key, binding.action, binding.description, binding.group, enabled, tooltip)
                + (app.get_key_display(binding),)
                for key, (_node, binding, enabled, tooltip) in bindings.items()
                if binding.show or key == app.COMMAND_PALETTE_BINDING
            ),
        )
