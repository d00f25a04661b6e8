"""The apps the UI rows measure: ensemble-tui opened the way the CLI opens it, and the naive
baselines (one `textual.widgets.Markdown` per message; a bare app with seven tabs)."""

from __future__ import annotations

import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Markdown, TextArea

from ensemble_tui.bootstrap import attach_providers, build_app
from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.provider import CallRequest, Provider, Reply
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.logs import configure_logging
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier

SIZE = (120, 40)


@dataclass
class CallTimes:
    """When each model call started and ended, as the engine saw it (perf_counter seconds)."""

    spans: list[tuple[str, float, float]] = field(default_factory=list)


class TimedProvider:
    """Wraps an adapter to time `complete` (the model call as the engine sees it); everything
    else (prepare, pdf_note, aclose) goes to the adapter unchanged."""

    def __init__(self, label: str, inner: Provider, times: CallTimes) -> None:
        self._label = label
        self._inner = inner
        self._times = times

    @property
    def inner(self) -> Provider:
        """The adapter timed."""
        return self._inner

    async def complete(self, request: CallRequest) -> Reply:
        started = time.perf_counter()
        try:
            return await self._inner.complete(request)
        finally:
            self._times.spans.append((self._label, started, time.perf_counter()))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def timed_providers(workspace: Workspace) -> CallTimes:
    """Put a TimedProvider around every adapter of `workspace`."""
    times = CallTimes()
    workspace.providers = {label: TimedProvider(label, p, times) for label, p in workspace.providers.items()}  # type: ignore[misc]
    return times


def open_ensemble_app(home: Path, env: dict[str, str]) -> tuple[EnsembleApp, Workspace, CallTimes]:
    """What `ensemble-tui --home HOME --demo` does before `app.run()` (commands/app.py), with the
    benchmark's simulator instead of the demo one and a recording notifier (no desktop)."""
    workspace = Workspace.open(home)
    configure_logging(workspace.paths.logs)
    attach_providers(workspace, env, prepare=False)  # the app starts the uploads after its first frame
    times = timed_providers(workspace)
    app = build_app(workspace, demo=True, notifier=RecordingNotifier())
    return app, workspace, times


class NaiveChatApp(App[None]):
    """The obvious chat log: one `textual.widgets.Markdown` per message, anchored to the bottom.
    `complete` tells when every message has finished mounting its blocks."""

    CSS = "#log { height: 1fr; } #input { height: 5; }"

    def __init__(self, history: Sequence[ChatMessage]) -> None:
        super().__init__()
        self.history = list(history)

    @property
    def complete(self) -> bool:
        """Every message has mounted its Markdown blocks (they mount after the widget itself)."""
        return all(widget.children for widget in self.query(Markdown))

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="log"):
            for message in self.history:
                yield Markdown(message.text)
        yield TextArea(id="input")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#log", VerticalScroll).anchor()
        self.query_one("#input", TextArea).focus()


async def run_headless(
    app: App[Any], body: Callable[[], Awaitable[dict[str, Any]]], timeout_s: float
) -> dict[str, Any]:
    """Run `app` headless at SIZE while `body` measures it; always stop the app afterwards."""
    import asyncio

    runner = asyncio.create_task(app.run_async(headless=True, size=SIZE))
    try:
        return await asyncio.wait_for(body(), timeout_s)
    except TimeoutError:
        screen = app.export_screenshot() if app.is_running else "(not running)"
        print(f"the screen when the benchmark gave up:\n{_svg_text(screen)}", file=sys.stderr)
        raise TimeoutError(f"no expected frame within {timeout_s} s (the screen is printed above)") from None
    finally:
        app.exit()
        try:
            await asyncio.wait_for(runner, 10)
        except (TimeoutError, asyncio.CancelledError):
            runner.cancel()


def _svg_text(svg: str) -> str:
    """The visible text of an SVG screenshot, line by line (for error messages)."""
    import html
    import re

    lines = re.findall(r"<text[^>]*>(.*?)</text>", svg)
    return "\n".join(html.unescape(re.sub(r"<[^>]+>", "", line)) for line in lines)
