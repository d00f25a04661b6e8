"""The line under the chat: what the run is doing, for how long, who answered, the deliberation
style the next multi-model turn uses, and the cost.

The spinner and clock tick on a timer only while a run is under way, and only this one-line
widget repaints, so an idle app draws nothing and snapshots are stable. Whether a run is under
way, and since when, the line reads from the run it is given (`follow`: the TurnController's
`ActiveTurn`), never from a flag of its own.

When the line is too short for everything (80 columns during a run), progress wins: the spinner,
the phase with its count, the elapsed time, a retry under way and how to cancel are always
shown; then the cost as a bare figure, who answered (cut with "…"), the cost's label, and last
the style, which is the first to go (`plan_line`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from rich.style import Style as RichStyle
from rich.text import Text
from textual import events
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.timer import Timer
from textual.visual import Visual, visualize
from textual.widget import Widget

from ensemble_tui.core.money import cents, cost_phrase, money
from ensemble_tui.core.turn.handle import TurnPhase
from ensemble_tui.ui.chat_log.rendering import plain

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_S = 0.125
HOLD_WIDTHS_S = 0.5  # the longest a run's first line waits for the turn's first news to resize its parts


def elapsed_text(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m {whole % 60:02d}s"


# Below this many cells, who answered is left out rather than cut to a stub.
MIN_NAMES_CELLS = 16


MAPPING = "Drawing the claim map…"  # after the turn's end line while its claim map is drawn


class Run(Protocol):
    """What the line reads of the turn on screen (ui/turns/active_turn.py's ActiveTurn)."""

    @property
    def started(self) -> float: ...
    @property
    def phase(self) -> TurnPhase: ...


@dataclass(frozen=True)
class LineParts:
    """What the status line would show, each part in its longest form.

    `progress` is the spinner and phase (cut with "…" if even it does not fit), `suffix` the
    elapsed time and retry (never cut), `hint` how to cancel; `names` who answered and who is
    awaited; `style` and `cost` the right-hand parts, each with a shorter form.
    """

    progress: Text
    suffix: Text
    hint: Text
    names: Text
    style: tuple[Text, Text]
    cost: tuple[Text, Text]


@dataclass(frozen=True)
class LinePlan:
    status: Text
    style: Text | None  # None: left out
    cost: Text | None


def plan_line(parts: LineParts, width: int, style_gap: int, cost_gap: int) -> LinePlan:
    """Fit the parts into `width` cells in priority order (see the module docstring); a right-hand
    part takes its gap (margin) with it. `width` 0 means not laid out yet: everything in full."""
    if width <= 0:
        status = Text(end="", no_wrap=True).join([parts.progress, parts.suffix, parts.names, parts.hint])
        return LinePlan(status, parts.style[0], parts.cost[0])
    fixed = parts.suffix.cell_len + parts.hint.cell_len
    progress = parts.progress.copy()
    if progress.cell_len + fixed > width:
        progress.truncate(max(1, width - fixed), overflow="ellipsis")
    room = width - progress.cell_len - fixed
    long_cost, short_cost = parts.cost
    cost = short_cost if short_cost.cell_len + cost_gap <= room else None
    room -= cost.cell_len + cost_gap if cost is not None else 0
    names = parts.names.copy()
    if names.cell_len > room:
        if room >= MIN_NAMES_CELLS:
            names.truncate(room, overflow="ellipsis")
        else:
            names = Text(end="")
    room -= names.cell_len
    if cost is not None and long_cost.cell_len - cost.cell_len <= room:
        room -= long_cost.cell_len - cost.cell_len
        cost = long_cost
    style = _first_fitting(parts.style, room - style_gap)
    status = Text(end="", no_wrap=True).join([progress, parts.suffix, names, parts.hint])
    return LinePlan(status, style, cost)


def _first_fitting(forms: tuple[Text, Text], room: int) -> Text | None:
    return next((form for form in forms if form.cell_len <= room), None)


class StatusBar(Widget):
    """Status text with spinner and elapsed time on the left, style and session cost on the right.

    One widget of one fixed size draws the three parts itself (`render_line`), so nothing it shows
    ever asks for a layout: as three Statics in a row, a part that grew, shrank or went (the cost
    during a run, the style giving its room to who answered) asked Textual to lay out the whole
    screen (18 requests in bench row 4's All turns; most came in the same tick as the chat log's
    own, so they seldom made a pass of their own). It draws the parts as those Statics did (the
    status `1fr`, the style and cost as wide as their text, each after its gap), cell for cell
    and segment for segment, so the snapshots are unchanged.
    """

    COMPONENT_CLASSES = {"status-bar--cost"}
    GAP = 3  # cells before the style and before the cost

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.run: Run | None = None  # the turn on screen, if any (its reply under way, or its claim map)
        self._text = "Ready."
        self.note = ""  # after `text` when it is the turn's end line ("Claims mapped.")
        self._turn_end = False  # `text` is the line the last turn ended with (show_turn_end)
        self.hint = ""  # how to cancel, shown while a run is under way
        self.retry = ""  # a retry under way ("ChatGPT retries in 4s"), shown while running
        self.answered: tuple[str, ...] = ()
        self.waiting: tuple[str, ...] = ()
        self._frame = 0
        self._timer: Timer | None = None
        self._cost = 0.0
        self._simulated = False  # a demo's money: "would cost $0.17 (simulated)"
        self._unconfirmed = 0.0  # what a turn cut off by a crash still holds (issue 34 §2)
        self._style = ("Aggregator", True)
        self._plan: LinePlan | None = None  # what is on screen (None: not drawn yet)
        # A run has just started: the right-hand parts keep their places until the line's next
        # news (see `_paint`).
        self._hold_widths = False
        self._line: tuple[tuple[object, ...], Strip] | None = None  # the last line drawn, and for what

    def on_mount(self) -> None:
        self._timer = self.set_interval(TICK_S, self._tick, pause=True)

    def on_resize(self, event: events.Resize) -> None:
        self._paint()

    @property
    def shown(self) -> LinePlan:
        """The three parts as on screen: the status text, the style and the cost (None: left out)."""
        if self._plan is None:
            return plan_line(self._parts(), 0, 0, 0)
        return self._plan

    @property
    def status_room(self) -> int:
        """The cells the status text has: the line's width less the style and cost shown."""
        plan = self.shown
        return self.content_size.width - sum(part.cell_len + self.GAP for part in (plan.style, plan.cost) if part)

    @property
    def text(self) -> str:
        """The line's text as shown: what it was last given, then, after a turn's end line, how
        its claim map is doing ("Drawing the claim map…" while its turn is MAPPING)."""
        note = self._end_note() if self._turn_end else ""
        return f"{self._text} {note}" if note else self._text

    @property
    def running(self) -> bool:
        """A reply is under way: the spinner turns and the clock counts."""
        return self.run is not None and self.run.phase is TurnPhase.RUNNING

    def follow(self, run: Run | None, hint: str = "") -> None:
        """Show `run` (None: no run): while there is one the spinner turns and the clock counts
        from its start, with `hint` (how to cancel); who answered and a retry are cleared."""
        self._hold_widths = run is not None and run is not self.run
        self.run = run
        self.hint = hint if run is not None else ""
        self.retry = ""
        self.answered, self.waiting = (), ()
        if self._timer is not None:
            if self.running:
                self._timer.resume()
            else:
                self._timer.pause()
        self._paint()

    def show(self, text: str) -> None:
        """What the run is doing, or how it ended, or the answer to something the user did."""
        self._text = text
        self.note = ""
        self._turn_end = False
        self._paint()

    def show_turn_end(self, text: str) -> None:
        """The line a turn's reply ended with; while the turn's claim map is drawn (its MAPPING
        phase) the line says so after it, and `note_turn_end` may add how the map ended."""
        self.show(text)
        self._turn_end = True

    def note_turn_end(self, note: str) -> None:
        """A note after the turn's end line, never over a newer line."""
        if self._turn_end:
            self.note = note
            self._paint()

    def update_status(self, text: str, answered: Sequence[str] = (), waiting: Sequence[str] = ()) -> None:
        self._hold_widths = False
        self._text = text
        self.answered, self.waiting = tuple(answered), tuple(waiting)
        self._paint()

    def set_retry(self, text: str) -> None:
        """Show a retry under way beside the elapsed time ("" clears it); the run's end clears it."""
        self.retry = text
        self._hold_widths = False
        self._paint()

    def set_cost(self, usd: float, *, simulated: bool | None = None) -> None:
        """Show the chat's cost; `simulated` (None: as before) labels it as a demo's, what real
        providers would charge."""
        self._cost = usd
        self._hold_widths = False
        if simulated is not None:
            self._simulated = simulated
        self._paint()

    def set_unconfirmed(self, usd: float) -> None:
        """Show, beside the cost, what a crashed turn's calls still hold (0: nothing)."""
        self._unconfirmed = usd
        self._paint()

    def set_style(self, label: str, applies: bool) -> None:
        """Show the chosen style; dimmed with a hint when the next turn is a single model's.
        Called at the start and end of every run; unchanged, it costs nothing."""
        if (label, applies) == self._style and self.is_mounted:
            return
        self._style = (label, applies)
        self._paint()

    def _tick(self) -> None:
        if self.run is not None and time.monotonic() - self.run.started >= HOLD_WIDTHS_S:
            self._hold_widths = False
        self._frame = (self._frame + 1) % len(SPINNER)
        self._paint()

    def _paint(self) -> None:
        """Plan the line again and redraw it: never a layout (see the class docstring)."""
        if not self.is_mounted:
            return
        width = self.content_size.width
        plan = plan_line(self._parts(), width, self.GAP, self.GAP)
        shown = self._plan
        if self._hold_widths and shown is not None and (shown.style, shown.cost) != (plan.style, plan.cost):
            # A run's first line ("Starting…") keeps the style and cost as they are, its phase
            # cut with "…" if need be, until the turn's first news (the question in the chat and
            # its status, its cost; at the latest the spinner's tick after HOLD_WIDTHS_S): the
            # right-hand parts do not jump at Enter and again at that news.
            room = width - sum(part.cell_len + self.GAP for part in (shown.style, shown.cost) if part)
            blank = (Text(end=""), Text(end=""))
            status = plan_line(replace(self._parts(), style=blank, cost=blank), max(1, room), 0, 0).status
            plan = LinePlan(status, shown.style, shown.cost)
        self._plan = plan
        self.refresh()

    def render_line(self, y: int) -> Strip:
        """The line as three Statics in a row drew it: the status padded to its room, then each
        right-hand part after its gap (blank in the line's own style)."""
        width = self.content_size.width
        if y or width <= 0:
            return Strip.blank(max(0, width), self.visual_style.rich_style)
        plan = self.shown
        base = self.visual_style
        key = (plan, width, base, self.background_colors)  # each frame over the line draws it
        if self._line is not None and self._line[0] == key:
            return self._line[1]
        gap = Strip.blank(self.GAP, self._blank_style())
        right: list[Strip] = []
        for part, style in ((plan.style, base), (plan.cost, self.get_visual_style("status-bar--cost"))):
            if part is not None:
                right += [gap, self._part_strip(part, part.cell_len, style)]
        room = width - sum(strip.cell_length for strip in right)
        line = Strip.join([self._part_strip(plan.status, max(0, room), base), *right]).crop(0, width)
        self._line = (key, line)
        return line

    def _part_strip(self, text: Text, width: int, style: VisualStyle) -> Strip:
        """`text` drawn `width` cells wide, as a Static of that width draws it."""
        if width <= 0:
            return Strip([], 0)
        strips = Visual.to_strips(self, visualize(self, text), width, 1, style)
        line = strips[0] if strips else Strip.blank(width, self._blank_style())
        return line.adjust_cell_length(width, self._blank_style())

    def _blank_style(self) -> RichStyle:
        """The style of blank cells: the background alone, as Textual pads a widget's lines."""
        base, background = self.background_colors
        return VisualStyle(background=base + background).rich_style

    def _parts(self) -> LineParts:
        progress = Text(end="", no_wrap=True, overflow="ellipsis")
        if self.running:
            progress.append(SPINNER[self._frame] + " ", style="bold")
        progress.append_text(plain(self.text))
        suffix = Text(end="", no_wrap=True)
        if self.running and self.run is not None:
            suffix.append(f"  {elapsed_text(time.monotonic() - self.run.started)}", style="dim")
            if self.retry:
                suffix.append("  ")
                suffix.append_text(plain(self.retry))
        names = Text(end="", no_wrap=True, overflow="ellipsis")
        if self.answered:
            names.append("  answered: ", style="dim")
            names.append(", ".join(self.answered))
        if self.waiting and self.running:
            names.append("  waiting: ", style="dim")
            names.append(", ".join(self.waiting))
        hint = Text(f" · {self.hint}", style="dim", end="") if self.running and self.hint else Text(end="")
        return LineParts(progress, suffix, hint, names, self._style_forms(), self._cost_forms())

    def _end_note(self) -> str:
        mapping = self.run is not None and self.run.phase is TurnPhase.MAPPING
        return MAPPING if mapping else self.note

    def _style_forms(self) -> tuple[Text, Text]:
        label, applies = self._style
        short = Text("Style ", style="dim", end="", no_wrap=True)
        short.append(label, style="bold" if applies else "dim")
        full = short.copy()
        if not applies:
            full.append(" (multi-model turns only)", style="dim")
        return full, short

    def _cost_forms(self) -> tuple[Text, Text]:
        held = f" + up to {cents(self._unconfirmed)} unconfirmed" if self._unconfirmed > 0 else ""
        return (
            Text(f"Session {cost_phrase(self._cost, simulated=self._simulated)}{held}", end="", no_wrap=True),
            Text(money(self._cost, simulated=self._simulated) + held, end="", no_wrap=True),
        )
