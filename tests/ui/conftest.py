"""UI fixtures: an app over a fresh workspace with scripted providers, and Pilot helpers.

Every app here gets a RecordingNotifier and a recording folder opener, so no test reaches the
desktop; the engine sleeps for no time between retries, so failure tests stay fast.
"""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console, RenderableType
from textual import constants
from textual.pilot import Pilot

from ensemble_tui.bootstrap import build_app
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.gc_schedule import CollectorPolicy
from ensemble_tui.ui.notify import RecordingNotifier
from tests.support import FolderOpener, ScriptedProvider, no_sleep

SIZE = (120, 40)


@pytest.fixture(autouse=True)
def no_animations(monkeypatch: pytest.MonkeyPatch) -> None:
    """The apps here draw no animation frames: Textual's TEXTUAL_ANIMATIONS=none (a setting its
    users have too), under which an animation goes at once to where it would have ended. No test
    looks at the frames in between, and they were half a pane switch's CPU (0.17 s -> 0.08 s at
    120x40): the tabs' underline slid for 0.3 s, a dozen screen updates each time a test showed
    a pane. The snapshots are the same. The apps the tmux tests run keep their animations."""
    monkeypatch.setattr(constants, "TEXTUAL_ANIMATIONS", "none")


@pytest.fixture(autouse=True)
def started_up(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """`run_test()` hands over the app once its first complete frame is drawn (the footer's keys
    too, a few frames after the first) and the work after it has started, as a user sees it
    before clicking: a test that clicked at once would depend on the machine's speed. A test of
    those first frames is marked `first_frames` and gets the app as it comes.

    Its `pilot.press` returns once the keys have gone their whole way: the app holds the keys
    behind one that may move the focus until it has (ui/key_order.py), and Pilot's own wait
    could end while they were held, so a test that checked at once raced the machine's load."""
    if request.node.get_closest_marker("first_frames"):
        return
    original = EnsembleApp.run_test

    @asynccontextmanager
    async def run_test(self: EnsembleApp, *args: Any, **kwargs: Any) -> AsyncIterator[Pilot]:
        async with original(self, *args, **kwargs) as pilot:
            await wait_until(pilot, lambda: self.started_up)
            press = pilot.press

            async def press_and_wait(*keys: str) -> None:
                await press(*keys)
                await wait_until(pilot, lambda: not self.keys_pending or self.return_code is not None)  # or quit

            pilot.press = press_and_wait  # type: ignore[method-assign]
            yield pilot

    monkeypatch.setattr(EnsembleApp, "run_test", run_test)


@pytest.fixture
def chatty(scripted: dict[str, ScriptedProvider]) -> dict[str, ScriptedProvider]:
    """Scripted providers that answer every call ("<Label> answer"; the aggregator says FINAL)."""
    for label, provider in scripted.items():
        provider.default = f"{label} answer"
    return scripted


@pytest.fixture
def make_app(workspace: Workspace) -> Callable[..., EnsembleApp]:
    def factory(**kwargs: object) -> EnsembleApp:
        options: dict[str, object] = {
            "engine": Engine(workspace, rng=random.Random(7), sleep=no_sleep),
            "notifier": RecordingNotifier(),
            "folder_opener": FolderOpener(),
            "collector": CollectorPolicy(enabled=False),  # the test process's collector is left alone
        }
        options.update(kwargs)
        return build_app(workspace, **options)  # type: ignore[arg-type]

    return factory


async def settle(pilot: Pilot, timeout: float = 30.0) -> None:
    """Wait until no turn is running and every message has been handled. The timeout only stops
    a hung test: it is long, so that a loaded machine never fails a test that would pass."""
    app = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        await pilot.pause()
        if app.main.turns.turn is None:
            break
        if loop.time() > deadline:
            raise AssertionError("the turn did not finish in time")
        await asyncio.sleep(0.01)
    await app.workers.wait_for_complete()
    await pilot.pause()


def shows_pending_input(app: EnsembleApp) -> bool:
    """The chat ends with an input still waiting for its reply (a run under way shows it)."""
    items = app.main.chat.log_view.items
    return bool(items) and items[-1].role == "user"


def key_in_play(app: EnsembleApp, action_id: str) -> bool:
    """Whether a key runs the action table's `action_id` on the screen on top now (a dialog hides
    the main screen's keys, except those that act over dialogs)."""
    return any(active.binding.id == action_id and active.enabled for active in app.screen.active_bindings.values())


async def wait_until(pilot: Pilot, condition: Callable[[], bool], timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(
                f"condition not reached in time (screen {pilot.app.screen!r}, focus {pilot.app.focused!r})"
            )
        await pilot.pause(0.01)


async def show_pane(pilot: Pilot, pane_id: str) -> None:
    """Show a pane as its key would, and wait until it is mounted (a pane is mounted when it is
    first shown: ui/panes/lazy.py)."""
    app = pilot.app
    app.main.show_pane(pane_id)
    placeholder = app.main.lazy_panes.get(pane_id)
    if placeholder is not None:
        await wait_until(pilot, lambda: placeholder.pane.is_mounted)
    await pilot.pause()


async def type_text(pilot: Pilot, text: str) -> None:
    """Type into the focused widget (as a paste would arrive: whole, newlines included)."""
    pilot.app.main.chat.input.insert(text)
    await pilot.pause()


def restarted_app(home: Path) -> EnsembleApp:
    """The app as the next start opens it, over the same home."""
    workspace = Workspace.open(home)
    workspace.attach_providers(
        {name: ScriptedProvider(name, default=f"{name} answer") for name in ("ChatGPT", "Claude", "Gemini")}, {}
    )  # type: ignore[misc]
    workspace.update_settings(claim_map=False)  # scripted providers script no claim map (tests/claims)
    engine = Engine(workspace, rng=random.Random(7), sleep=no_sleep)
    return build_app(workspace, engine=engine, notifier=RecordingNotifier(), collector=CollectorPolicy(enabled=False))


def rendered_text(renderable: RenderableType, width: int = 110) -> str:
    """A renderable as plain text, as a terminal of `width` columns shows it."""
    console = Console(width=width, file=io.StringIO(), color_system=None)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()
