"""SVG snapshots of the Compare view at 80x24 (stacked) and 120x40 (side by side).

The run is a fixed record (every figure set), the chat's PDF is the shared sample, and the
snapshot is taken once every quote check has come back. Update with:
pytest tests/ui/test_compare_snapshots.py --snapshot-update
"""

from __future__ import annotations

import pytest

from ensemble_tui.core.chat.runlog import Artifact, CallRecord, TurnRecord
from ensemble_tui.core.provider import Usage
from ensemble_tui.ui.screens.compare import CHECKING, CompareScreen
from tests.core.test_quotes import ACROSS_LINE
from tests.ui.conftest import wait_until
from tests.ui.test_snapshots import SIZES, snapshot_app  # noqa: F401  (the fixture)

ANSWERS = {
    "ChatGPT": f'Aggregation helps. The paper reports that "{ACROSS_LINE}" (p. 1).',
    "Claude": "| Method | Correct |\n|---|---|\n| Aggregation | 87 |\n| Best single model | 74 |\n\n"
    "So **aggregation** wins by 13 answers.",
    "Gemini": '"aggregation with one resynthesis round answered 78 correctly, against 74" — see Table 9.',
}


def resynthesis_record(session_id: str) -> TurnRecord:
    """An All run whose aggregator asked for one resynthesis round, every figure fixed."""
    usage = Usage(input_tokens=2200, output_tokens=120)
    figures = {
        "ChatGPT": ("gpt-5", 4.2, 0.0040),
        "Claude": ("claude-x", 5.1, 0.0084),
        "Gemini": ("gemini-y", 3.6, 0.0012),
    }
    calls = [
        CallRecord(provider, model, "proposer", 1, latency * round_, "ok", usage, cost * round_)
        for round_ in (1, 2)
        for provider, (model, latency, cost) in figures.items()
    ]
    answers = [Artifact("answer", provider, f"First draft by {provider}.", round=1) for provider in figures] + [
        Artifact("answer", provider, text, round=2) for provider, text in ANSWERS.items()
    ]
    return TurnRecord(
        session=session_id,
        mode="all",
        style="aggregate",
        query="How much does aggregation help?",
        started_at="2026-01-02T09:31:00",
        outcome="final",
        proposers_s=[5.1, 10.2],
        calls=calls,
        artifacts=[*answers, Artifact("final", "", "It helps: 87 against 74.")],
        turn_cost_usd=0.03,
        session_cost_usd=0.0421,
    )


@pytest.mark.parametrize("size", SIZES)
def test_compare_screen_layout(snap_compare, snapshot_app, size):  # noqa: F811
    snapshot_app.workspace.archive.save_turn(resynthesis_record(snapshot_app.workspace.session.id))

    async def open_compare(pilot) -> None:
        await pilot.pause()  # let start-up finish (see test_snapshots.show)
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CompareScreen))
        screen = pilot.app.screen
        await wait_until(
            pilot,
            lambda: len(screen.quote_lines) == 6 and all(c.quote_line.plain != CHECKING for c in screen.columns()),
        )
        await pilot.pause()

    assert snap_compare(snapshot_app, terminal_size=size, run_before=open_compare)
