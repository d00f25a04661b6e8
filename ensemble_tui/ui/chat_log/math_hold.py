"""Math converted after the first frame for the replies that frame does not show (issue 16).

Opening a chat draws the newest few replies, anchored to the end of the log, so the first frame
shows only the end of the newest one or two; their formulas are usually further up. Converting
LaTeX to text costs the converter's import (~5 ms) and ~4 ms a reply, so an entry whose formulas
are all above the first frame is drawn with its math held (as the LaTeX, which nobody sees) and
converted right after that frame. The log stays anchored, so an entry above the view that
grows when converted moves nothing on screen.

Which formulas the first frame could show is worked out at the width the log lays its entries
out at, before any is drawn (`OpeningPlan.settle`, called from the first entry's measure). From
the newest entry up: rows of entries below count toward the view's height (taken as the
screen's: at least the log's); an entry with math is split after the top-level Markdown block
holding its last formula, and if the rows after that block already fill the view, its formulas
(and every older entry) are out of sight. Rich renders top-level blocks one after another, so
those rows are the same whether the math above them is converted or not. Otherwise the entry is
converted there and then, before it is measured: the view never shows raw LaTeX.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from rich.console import Console, ConsoleOptions, RenderableType

from ensemble_tui.core.text.markdown_blocks import block_parser, has_math
from ensemble_tui.ui.chat_log.rendering import MARKDOWN_LIMIT_CHARS, RenderedOnce, math_rendering

if TYPE_CHECKING:
    from textual.containers import VerticalScroll

    from ensemble_tui.core.chat.session import ChatMessage

_MATH_ENDS = ("$", "\\)", "\\]")


class HeldMath(RenderedOnce):
    """A message's renderable built with math held (raw) or converted; `release` switches it to
    converted for good. `build(math)` makes the renderable for either form."""

    def __init__(self, build: Callable[[bool], RenderableType]) -> None:
        super().__init__()
        self._build = build
        self.held = True
        self._made: RenderableType | None = None

    def content(self) -> RenderableType:
        if self._made is None:
            self._made = self._build(not self.held)
        return self._made

    def release(self) -> None:
        if self.held:
            self.held, self._made, self._key = False, None, None


class HoldingEntry(Protocol):
    """What the plan needs of a log entry: its renderable and text, and its held math if any."""

    @property
    def held_math(self) -> HeldMath | None: ...

    @property
    def content(self) -> Any: ...

    @property
    def item(self) -> Any: ...


def rows(renderable: RenderableType, console: Console, options: ConsoleOptions) -> int:
    """Lines `renderable` takes, counted as Textual counts a widget's height (RichVisual)."""
    return sum(text.count("\n") for text, _, _ in console.render(renderable, options))


def math_head(text: str) -> str:
    """`text` up to the end of the top-level Markdown block holding its last formula: everything
    after it renders the same whether the math is converted or not."""
    last = max(text.rfind(end) for end in _MATH_ENDS)
    if last < 0:
        return ""
    line = text.count("\n", 0, last)
    end = line + 1
    for token in block_parser().parse(text):
        if token.level == 0 and token.map and token.map[0] <= line < token.map[1]:
            end = token.map[1]
            break
    return "\n".join(text.split("\n")[:end])


class OpeningPlan:
    """Decides, once, which of a log's opening entries convert their math before the first
    frame; the rest are released by `release_held` after it."""

    def __init__(self, entries: Sequence[HoldingEntry], head_renderable: Callable[[str], RenderableType]) -> None:
        self.entries = list(entries)
        self.head_renderable = head_renderable  # the raw Markdown of a head, as the entry draws it
        self.settled = False

    @property
    def held(self) -> list[HoldingEntry]:
        return [e for e in self.entries if e.held_math is not None and e.held_math.held]

    def settle(self, console: Console, options: ConsoleOptions, view_height: int) -> None:
        """Convert now each entry whose formulas the first frame could show (see the module)."""
        if self.settled:
            return
        self.settled = True
        below = 0
        for entry in reversed(self.entries):
            held = entry.held_math
            if held is not None and held.held:
                total = rows(entry.content, console, options)  # kept: the entry's measure reuses it
                head = rows(self.head_renderable(math_head(getattr(entry.item, "text", ""))), console, options)
                if below + total - head - 1 >= view_height:
                    return  # this entry's formulas and everything older are above the view
                held.release()
            below += rows(entry.content, console, options)
            if below >= view_height:
                return

    def release_held(self) -> list[HoldingEntry]:
        """Convert every entry still held; returns them (their heights change)."""
        released = self.held
        for entry in released:
            assert entry.held_math is not None
            entry.held_math.release()
        self.settled = True
        return released


def may_hold_math(message: ChatMessage) -> bool:
    """A reply with math whose head can be measured alone (no quote marks, Markdown-sized)."""
    text = message.text
    return (
        math_rendering()
        and message.role == "assistant"
        and not message.checks
        and len(text) <= MARKDOWN_LIMIT_CHARS
        and has_math(text)
    )


def release_after_frame(log: VerticalScroll, plan: OpeningPlan, refreshes_left: int = 5) -> None:
    """After the log's first frame: convert what `plan` held. Anchored, the log keeps its end in
    view; scrolled up (not anchored), the view stays on the newest entry converted before."""
    if not plan.settled and refreshes_left:  # not laid out yet (a hidden pane waits, too)
        log.call_after_refresh(release_after_frame, log, plan, refreshes_left - 1)
        return
    shown = [entry for entry in plan.entries if entry.held_math is None or not entry.held_math.held]
    newest: Any = shown[-1] if shown else None
    newest_y, old_y = (newest.virtual_region.y if newest is not None else 0), log.scroll_y
    for entry in plan.release_held():
        entry.plan = None  # type: ignore[attr-defined]
        if getattr(entry, "is_attached", False):
            entry.refresh(layout=True)  # type: ignore[attr-defined]
    if not log.is_anchored and newest is not None:
        log.call_after_refresh(lambda: log.scroll_to(y=old_y + newest.virtual_region.y - newest_y, animate=False))
