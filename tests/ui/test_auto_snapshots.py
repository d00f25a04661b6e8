"""SVG snapshots of auto mode in the chat, at 80x24 and 120x40: the Auto button beside All,
marked as Enter's default, and under each reply the line that says whether the two first
answers agreed or why the full turn ran on top.
Update with: pytest tests/ui/test_auto_snapshots.py --snapshot-update
"""

from __future__ import annotations

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.chat.provenance import Provenance
from ensemble_tui.core.chat.session import ChatMessage
from tests.ui.test_snapshots import SIZES, snapshot_app, steady_cursor  # noqa: F401 (a fixture)


@pytest.mark.parametrize("size", SIZES)
def test_auto_replies_say_whether_they_agreed(snap_compare, snapshot_app, size):  # noqa: F811
    history = snapshot_app.workspace.session.history
    history[:] = [
        ChatMessage(role="user", text="What does the paper say about anonymity?"),
        ChatMessage(
            role="assistant",
            text="Keeping the proposals anonymous stops the aggregator favouring a familiar name.",
            provenance=Provenance(line="auto · 2 calls · agreed · gpt-5 ×2"),
        ),
        ChatMessage(role="user", text="What does HERON-7 show?"),
        ChatMessage(
            role="assistant",
            text="Aggregation answered 87 of the 120 questions correctly.",
            provenance=Provenance(line="auto · escalated: 1 disputed claim · aggregator gpt-5 · 2 of 3 proposals"),
        ),
    ]

    async def started(pilot) -> None:
        await pilot.pause()
        pilot.app.main.choices.mode = Mode.AUTO
        pilot.app.main.mark_actions()
        await pilot.pause()
        await steady_cursor(pilot)

    assert snap_compare(snapshot_app, terminal_size=size, run_before=started)
