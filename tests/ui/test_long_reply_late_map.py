"""Issue 31: a 40-line All reply whose claim map comes after it, read or not. Long replies show
from their start; the map's late outcome ("Claim map left out", or the summary under the reply)
never moves the chat's view. At 80x24 and 120x40, with scripted providers (tests/ui/long_reply_app.py).

Update the snapshots with: pytest tests/ui/test_long_reply_late_map.py --snapshot-update
"""

from __future__ import annotations

import threading

import pytest

from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.turns import turn_controller
from tests.ui.conftest import type_text, wait_until
from tests.ui.long_reply_app import QUESTION, long_reply_app
from tests.ui.test_snapshots import SIZES, steady_cursor


def first_line_in_view(app: EnsembleApp) -> bool:
    """The reply's first row is inside the chat's view."""
    log_view = app.main.chat.log_view
    reply = log_view.entries[-1]
    top = reply.virtual_region.y
    return log_view.scroll_y <= top < log_view.scroll_y + log_view.scrollable_content_region.height


async def send_and_wait_for_the_map(pilot, readable: bool, map_release: threading.Event) -> None:
    app = pilot.app
    await pilot.pause()
    await type_text(pilot, QUESTION)
    await pilot.press("f5")
    await wait_until(pilot, lambda: app.main.turns.map_pending, timeout=40)  # the reply is shown, the map is out
    map_release.set()  # the map comes now (after a fixed 1 s, a loaded machine could miss it pending)
    await wait_until(pilot, lambda: app.main.turns.turn is None, timeout=40)  # the map came, or was left out
    for _ in range(5):  # the late notice's layout, and any scroll it would cause
        await pilot.pause(0.05)
    await steady_cursor(pilot)
    status = app.main.chat.status.text
    assert ("Claims mapped." in status) if readable else status.startswith("Claim map left out:")
    assert first_line_in_view(app), "the late event scrolled the reply's start off screen"


@pytest.mark.parametrize("readable", [False, True], ids=["unreadable-map", "read-map"])
@pytest.mark.parametrize("size", SIZES)
def test_a_long_replys_start_stays_in_view_when_its_map_comes_late(
    snap_compare, home, monkeypatch, size, readable
) -> None:
    monkeypatch.setattr(turn_controller, "elapsed_text", lambda _seconds: "3s")  # a fixed clock on screen
    map_release = threading.Event()
    app = long_reply_app(home, readable, map_release)

    async def run_before(pilot) -> None:
        await send_and_wait_for_the_map(pilot, readable, map_release)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
