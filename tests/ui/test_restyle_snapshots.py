"""SVG snapshots of the restyle picker (Compare's `r`) at 80x24 and 120x40.

The last turn is a fixed All run of the snapshot chat's question. Update with:
pytest tests/ui/test_restyle_snapshots.py --snapshot-update
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from ensemble_tui.ui.screens.compare import CompareScreen
from ensemble_tui.ui.screens.restyle_picker import RestylePicker
from tests.ui.conftest import wait_until
from tests.ui.test_compare_snapshots import resynthesis_record
from tests.ui.test_snapshots import SIZES, snapshot_app  # noqa: F401  (the fixture)


@pytest.mark.parametrize("size", SIZES)
def test_restyle_picker_layout(snap_compare, snapshot_app, size):  # noqa: F811
    workspace = snapshot_app.workspace
    question = workspace.session.last_user_input
    workspace.archive.save_turn(replace(resynthesis_record(workspace.session.id), query=question))

    async def open_picker(pilot) -> None:
        await pilot.pause()  # let start-up finish (see test_snapshots.show)
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CompareScreen))
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, RestylePicker))
        await pilot.pause()

    assert snap_compare(snapshot_app, terminal_size=size, run_before=open_picker)
