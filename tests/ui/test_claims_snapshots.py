"""SVG snapshots of the Claims view (Compare's Claims tab, opened by F10) at 80x24 and 120x40: the
demo's planted contradiction first
(✓ on ChatGPT's side, ✗ on Claude's), then the agreed and unique claims.

The run is a fixed record holding a fixed map. Update with:
pytest tests/ui/test_claims_snapshots.py --snapshot-update
"""

from __future__ import annotations

import pytest

from ensemble_tui.core.chat.runlog import Artifact, TurnRecord
from ensemble_tui.core.claims.model import Citation, Claim, ClaimMap, Evidence, Stance
from ensemble_tui.ui.screens.compare import CLAIMS, CompareScreen
from tests.ui.conftest import wait_until
from tests.ui.test_snapshots import SIZES, snapshot_app  # noqa: F401  (the fixture)

RIGHT = "aggregation with one resynthesis round answered 87 correctly"


def fixed_map() -> ClaimMap:
    on_page = Evidence(quote=RIGHT, cited_page=1, page=1, found=True)
    agreed = {
        name: Stance(
            stance="supports",
            quote="Anonymity matters",
            evidence=Evidence(quote="Keeping the proposals anonymous", cited_page=1, page=1, found=True),
        )
        for name in ("ChatGPT", "Claude", "Gemini")
    }
    return ClaimMap(
        confidence="medium",
        paper_checked=True,
        claims=[
            Claim(
                text="Keeping the proposals anonymous stops the aggregator favouring a familiar name.",
                kind="consensus",
                stances=agreed,
                citations=[Citation(text="p. 1", found=True)],
            ),
            Claim(
                text="Peer ranking was the most stable method.",
                kind="unique",
                stances={
                    "ChatGPT": Stance(stance="silent"),
                    "Claude": Stance(stance="silent"),
                    "Gemini": Stance(stance="supports", quote="peer ranking was the most stable method"),
                },
            ),
            Claim(
                text="With one resynthesis round, aggregation answered 87 of the 120 HERON-7 questions correctly.",
                kind="contradiction",
                stances={
                    "ChatGPT": Stance(stance="supports", quote="answered 87 correctly", evidence=on_page),
                    "Claude": Stance(
                        stance="contradicts",
                        quote="answered 92 correctly [b]not markup[/b]",
                        evidence=Evidence(quote=RIGHT.replace("87", "92"), cited_page=1, found=False),
                    ),
                    "Gemini": Stance(stance="silent"),
                },
                citations=[Citation(text="p. 1", found=True), Citation(text="Table 1")],
            ),
        ],
    )


def record_with_map(session_id: str) -> TurnRecord:
    return TurnRecord(
        session=session_id,
        mode="all",
        style="aggregate",
        query="How much does aggregation help?",
        started_at="2026-01-02T09:31:00",
        outcome="final",
        artifacts=[
            Artifact("claims", "ChatGPT", "{}", data={"map": fixed_map().model_dump(mode="json")}),
            Artifact("final", "", "It helps: 87 against 74."),
        ],
    )


@pytest.mark.parametrize("size", SIZES)
def test_claims_screen_layout(snap_compare, snapshot_app, size):  # noqa: F811
    snapshot_app.workspace.archive.save_turn(record_with_map(snapshot_app.workspace.session.id))

    async def open_claims(pilot) -> None:
        await pilot.pause()  # let start-up finish (see test_snapshots.show)
        await pilot.press("f10")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CompareScreen) and pilot.app.screen.tab == CLAIMS)
        await pilot.pause()

    assert snap_compare(snapshot_app, terminal_size=size, run_before=open_claims)
