"""Every line the app shows in the status line fits it at 80 columns (issue 35 #6): a line cut
with "…" lost the very part that said what to do ("…redo it with All")."""

from __future__ import annotations

import pytest

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.records import restyle
from ensemble_tui.core.turn.failure_lines import RESTYLE_RACED
from ensemble_tui.ui.actions import archive_flow, budget_actions
from ensemble_tui.ui.screens.claims import NO_MAP
from ensemble_tui.ui.turns.turn_controller import CANCELLED
from tests.ui.conftest import wait_until

NARROW = (80, 24)
LONGEST_MODE = max((mode.label for mode in Mode), key=len)
LONGEST_STYLE = max((style.label for style in Style), key=len)

# What the UI passes to `say` / the status line, f-strings at their longest realistic values.
MESSAGES = [
    restyle.NO_TURN,
    restyle.SINGLE.format(mode="Mistral Large"),  # a single model's turn: an added provider's name
    restyle.NO_PROPOSALS,
    restyle.NO_RECORD,
    RESTYLE_RACED,
    archive_flow.NO_RUNS,
    archive_flow.NO_PROPOSALS,
    NO_MAP,
    CANCELLED,
    budget_actions.NOTHING_TO_RELEASE,
    budget_actions.RELEASED.format(amount="$12.34"),
    "Stopped by an unexpected error.",
    "The run stopped. Enter on an empty input retries it.",
    f"{LONGEST_MODE} cannot run: see the line above.",
    f"{LONGEST_STYLE} applies from the next multi-model turn.",
    "New chat. The previous transcript is in Chats/.",
    "Reopened the chat of 2026-11-27T09-15-00.",
    "That chat is already open.",
    "The whole chat is shown.",
    "Last reply copied to the clipboard.",
    "Reply copied to the clipboard (123,456 characters of Markdown).",
    "Code block 12 of 12 copied (python).",
    "Math shown as LaTeX, as the models wrote it.",
    "The last reply has no http(s) links.",
]


@pytest.mark.parametrize("size", [NARROW])
async def test_every_status_message_fits_at_80_columns(workspace, chatty, make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        status = app.main.chat.status
        cut = []
        for message in MESSAGES:
            status.show(message)
            await pilot.pause()
            await wait_until(pilot, lambda m=message: m[:20] in status.render_line(0).text)
            shown = status.render_line(0).text[: status.status_room].rstrip()  # the line as drawn, its status part
            if shown != message:
                cut.append(f"{len(message)} cells: {message!r} shown as {shown!r}")
        assert not cut, "\n".join(cut)
