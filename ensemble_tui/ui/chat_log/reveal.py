"""Showing a new reply from its start, its question at the top: a mixin of MessageLog.

The log is anchored to its end, so a reply that fits the view is shown whole with its question.
A taller one would be drawn at its end; this scrolls the view to its question instead, in the
frame that first shows it when it can be measured before its layout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.containers import VerticalScroll

if TYPE_CHECKING:
    from textual.containers import Vertical
    from textual.widget import Widget

    from ensemble_tui.ui.chat_log.chat_view import LogEntry

    _Base = VerticalScroll
else:
    _Base = object


class RevealsStart(_Base):
    """`reveal_start(item)`, for a log whose entries live in one body container."""

    if TYPE_CHECKING:  # provided by MessageLog
        _entries: list[LogEntry]
        _body: Vertical

    def reveal_start(self, item: Any, refreshes_left: int = 5) -> None:
        """Show `item` (a reply) from its start, with the entry just before it (its question)
        at the top: the user reads down from there. A pair that fits the view stays shown whole
        at the end, as the log's anchor keeps it.

        A reply just mounted has no height until its first layout. It is measured here instead
        (`_reveal_before_layout`), so the frame that first shows it shows its start; waiting for
        the layout drew a frame of the reply's end first, and its scroll waited for another
        frame, often two (Textual's update timer skips a tick after a long one). Where it cannot
        be measured yet, this waits a few refreshes for the layout."""
        entries = self._entries
        index = next((i for i, entry in enumerate(entries) if entry.item is item), None)
        if index is None or not entries[index].is_attached:
            if refreshes_left:
                self.call_after_refresh(self.reveal_start, item, refreshes_left - 1)
            return
        reply = entries[index]
        before = entries[index - 1] if index else None
        top = before if before is not None and getattr(before.item, "role", "") == "user" else reply
        if not reply.outer_size.height:
            if not self._reveal_before_layout(reply, top) and refreshes_left:
                self.call_after_refresh(self.reveal_start, item, refreshes_left - 1)
            return
        if reply.virtual_region.bottom - top.virtual_region.y <= self.scrollable_content_region.height:
            return
        self.scroll_to(y=top.virtual_region_with_margin.y, animate=False, immediate=True)

    def _reveal_before_layout(self, reply: Widget, top: Widget) -> bool:
        """Scroll to `top` now if the reply, measured as its layout will measure it (the render
        is kept for the layout, see RenderedOnce), makes the pair taller than the view; False
        if it cannot be told yet or the pair may fit (the laid-out check decides then). The
        question may be just mounted too (a model that answers at once): it is measured alike,
        below the entry laid out before it.

        The view is set as Textual's compositor sets an anchored one: the position is past the
        end of what is laid out so far, so it is set without the clamp, which the layout applies
        again once the reply is in."""
        view = self.scrollable_content_region.height
        if top is reply or not view or not self._body.size.width:
            return False
        top_y = self._laid_out_above(top)
        top_height = self._height(top)
        reply_height = self._height(reply)
        if top_y is None or top_height is None or reply_height is None:
            return False
        if top_height + reply.styles.margin.top + reply_height <= view:
            return False
        self.release_anchor()
        self.set_reactive(VerticalScroll.scroll_y, top_y)
        self.set_reactive(VerticalScroll.scroll_target_y, top_y)
        self.vertical_scrollbar.position = top_y
        return True

    def _laid_out_above(self, entry: Widget) -> int | None:
        """Where `entry`'s margin box starts: its own place once laid out, else the end of the
        widget laid out just before it (None if that one is new too)."""
        if entry.outer_size.height:
            return entry.virtual_region_with_margin.y
        siblings = list(self._body.children)
        place = siblings.index(entry)
        if not place:
            return 0
        above = siblings[place - 1]
        return above.virtual_region_with_margin.bottom if above.outer_size.height else None

    def _height(self, entry: Widget) -> int | None:
        """`entry`'s height without margins: as laid out, else as its layout will find it."""
        if entry.outer_size.height:
            return entry.outer_size.height
        styles = entry.styles
        width = self._body.size.width - styles.gutter.width - styles.margin.width
        if width <= 0:
            return None
        return entry.get_content_height(self._body.size, self.screen.size, width) + styles.gutter.height
