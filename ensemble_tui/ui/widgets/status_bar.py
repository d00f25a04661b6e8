"""The line under the chat: what the run is doing, for how long, who answered, the deliberation
style the next multi-model turn uses, and the cost.

The spinner and clock tick on a timer only while a run is under way, and only this one-line
widget repaints, so an idle app draws nothing and snapshots are stable.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import Static

from ensemble_tui.ui.rendering import money, plain

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_S = 0.125


def elapsed_text(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m {whole % 60:02d}s"


class StatusBar(Horizontal):
    """Status text with spinner and elapsed time on the left, style and session cost on the right."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.running = False
        self.text = "Ready."
        self.hint = ""  # how to cancel, shown while a run is under way
        self.answered: tuple[str, ...] = ()
        self.waiting: tuple[str, ...] = ()
        self._started = 0.0
        self._frame = 0
        self._timer: Timer | None = None
        self._cost = 0.0
        self._style = ("Aggregator", True)

    def compose(self) -> ComposeResult:
        yield Static(self._status_line(), id="status-text")
        yield Static(self._style_line(), id="status-style")
        yield Static(self._cost_line(), id="status-cost")

    def on_mount(self) -> None:
        self._timer = self.set_interval(TICK_S, self._tick, pause=True)

    def start(self, text: str, hint: str = "") -> None:
        """A run began: reset the clock and start the spinner; `hint` (how to cancel) is shown
        until it ends."""
        self.running = True
        self.hint = hint
        self._started = time.monotonic()
        self.answered, self.waiting = (), ()
        self.text = text
        if self._timer is not None:
            self._timer.resume()
        self._paint()

    def update_status(self, text: str, answered: Sequence[str] = (), waiting: Sequence[str] = ()) -> None:
        self.text = text
        self.answered, self.waiting = tuple(answered), tuple(waiting)
        self._paint()

    def stop(self, text: str) -> None:
        """The run ended (reply, failure or cancel): freeze the line on `text`."""
        self.running = False
        if self._timer is not None:
            self._timer.pause()
        self.text, self.answered, self.waiting = text, (), ()
        self._paint()

    def set_cost(self, usd: float) -> None:
        """Show the session cost; a layout only if the line's width changes (it is sized to
        its text, and the cost changes with every call of a run)."""
        before = self._cost_line().cell_len
        self._cost = usd
        if self.is_mounted:
            line = self._cost_line()
            self.query_one("#status-cost", Static).update(line, layout=line.cell_len != before)

    def set_style(self, label: str, applies: bool) -> None:
        """Show the chosen style; dimmed with a hint when the next turn is a single model's.
        Called at the start and end of every run; unchanged, it costs nothing (no layout)."""
        if (label, applies) == self._style and self.is_mounted:
            return
        self._style = (label, applies)
        if self.is_mounted:
            self.query_one("#status-style", Static).update(self._style_line())

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER)
        self._paint()

    def _paint(self) -> None:
        """Redraw the status text. Without a layout: the line is one row high and takes the
        width left by the style and cost (`1fr`), so its text never changes its size, and a
        layout pass on every tick (8 a second during a run) cost 5-15 ms of the loop each."""
        if self.is_mounted:
            text = self.query_one("#status-text", Static)
            text.update(self._status_line(text.content_size.width), layout=False)

    def _status_line(self, width: int = 0) -> Text:
        """The status, cut with "…" to `width` cells (0: as long as it is) before the hint, so
        how to cancel stays in view however many models are named."""
        line = Text(end="", no_wrap=True, overflow="ellipsis")
        if self.running:
            line.append(SPINNER[self._frame] + " ", style="bold")
        line.append_text(plain(self.text))
        if self.running:
            line.append(f"  {elapsed_text(time.monotonic() - self._started)}", style="dim")
        if self.answered:
            line.append("  answered: ", style="dim")
            line.append(", ".join(self.answered))
        if self.waiting and self.running:
            line.append("  waiting: ", style="dim")
            line.append(", ".join(self.waiting))
        if self.running and self.hint:
            hint = Text(f" · {self.hint}", style="dim", end="")
            if width and line.cell_len + hint.cell_len > width:
                line.truncate(max(1, width - hint.cell_len), overflow="ellipsis")
            line.append_text(hint)
        return line

    def _style_line(self) -> Text:
        label, applies = self._style
        line = Text("Style ", style="dim", end="", no_wrap=True)
        line.append(label, style="bold" if applies else "dim")
        if not applies:
            line.append(" (multi-model turns only)", style="dim")
        return line

    def _cost_line(self) -> Text:
        return Text(f"Session cost {money(self._cost)}", end="", no_wrap=True)
