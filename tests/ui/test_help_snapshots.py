"""SVG snapshots of the help screen (F1) and the command palette (Ctrl+P), both made from the
action table (issue 31 §3), at 80x24 and at 120x40. The help lists each action once, Compare's
own keys in a group of their own; the palette names each key as Keymap.json maps it.
Update with: pytest tests/ui/test_help_snapshots.py --snapshot-update
"""

from __future__ import annotations

import pytest
from textual.command import CommandPalette

from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier
from ensemble_tui.ui.screens.help import HelpScreen
from tests.ui.conftest import wait_until
from tests.ui.test_snapshots import SIZES, steady_cursor


@pytest.fixture
def table_app(workspace, scripted):
    workspace.session.id = "2026-01-02_09-30-00"
    return EnsembleApp(workspace, notifier=RecordingNotifier(), folder_opener=lambda _path: False)


@pytest.mark.parametrize("size", SIZES)
def test_help_screen_layout(snap_compare, table_app, size):
    async def open_help(pilot) -> None:
        await pilot.pause()
        await steady_cursor(pilot)  # the question box behind the dialog
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
        await pilot.pause()

    assert snap_compare(table_app, terminal_size=size, run_before=open_help)


@pytest.mark.parametrize("size", SIZES)
def test_palette_layout(snap_compare, table_app, size):
    async def open_palette(pilot) -> None:
        await pilot.pause()
        await steady_cursor(pilot)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
        await pilot.pause(0.3)  # the commands are searched in a worker
        await steady_cursor(pilot)  # the palette's own search box
        await pilot.pause()

    assert snap_compare(table_app, terminal_size=size, run_before=open_palette)
