"""Instruments for a running Textual app: what reached the screen and when, event-loop lag, memory.

`FrameProbe` wraps the app's `_display` (a private Textual method: there is no public hook that
sees every frame, and the benchmark must not change the app). Textual calls it with each
compositor update, headless or not; headless runs just skip writing it. The probe turns the
update into the exact bytes a terminal would get (`render_segments`, the same call the real
driver makes, so its cost stays in the measurement) and keeps it as plain text, so a benchmark
can wait for "the first frame that shows X" without knowing anything about the app's widgets.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textual._compositor import CompositorUpdate
from textual.app import App

_MOVE = re.compile(r"\x1b\[\d+;\d+H")  # cursor moves start a new run of text
_OTHER_ESCAPES = re.compile(r"\x1b\[[0-9;:?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def frame_text(raw: str) -> str:
    """Plain text of a frame: styles dropped, each positioned run on its own line."""
    return _OTHER_ESCAPES.sub("", _MOVE.sub("\n", raw))


@dataclass
class _Waiter:
    needle: str
    after: float
    ready: Callable[[], bool]
    future: asyncio.Future[float]


class FrameProbe:
    """Timestamps (perf_counter) of every frame of `app`, and waits for frames that show a text."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.count = 0
        self.last_at = 0.0
        self.last_text = ""  # kept for diagnostics when an expected frame never comes
        self._waiters: list[_Waiter] = []
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if renderable is None or app._batch_count or not isinstance(renderable, CompositorUpdate):
                return
            text = frame_text(renderable.render_segments(app.console))
            now = time.perf_counter()
            self.count += 1
            self.last_at = now
            self.last_text = text
            for waiter in list(self._waiters):
                if now >= waiter.after and waiter.needle in text and waiter.ready():
                    self._waiters.remove(waiter)
                    if not waiter.future.done():
                        waiter.future.set_result(now)

        app._display = display  # type: ignore[method-assign]

    def wait_for(
        self, needle: str, *, after: float = 0.0, ready: Callable[[], bool] = lambda: True
    ) -> asyncio.Future[float]:
        """A future set to the time of the first frame, drawn at or after `after`, that contains
        `needle` while `ready()` holds."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiters.append(_Waiter(needle, after, ready, future))
        return future


@dataclass
class LagMonitor:
    """Event-loop lag: how late a 10 ms sleep wakes up, sampled continuously while running."""

    interval_s: float = 0.010
    samples: list[float] = field(default_factory=list)
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.samples = []
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> list[float]:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        return self.samples

    async def _run(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(self.interval_s)
            self.samples.append(max(0.0, time.perf_counter() - started - self.interval_s))


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (p99 of 40 samples is the largest: no interpolation flatters it)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-fraction * len(ordered) // 1))))
    return ordered[rank - 1]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def memory_mb() -> dict[str, float]:
    """This process's resident memory now (VmRSS) and at its peak (VmHWM), in MB (10^6 bytes)."""
    figures: dict[str, float] = {}
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                figures[name] = int(value.split()[0]) * 1024 / 1e6
    return figures
