"""SVG snapshots pinning the layout of each pane and each dialog, at 80x24 and at 120x40.

Deterministic by construction: a fixed session id, HOME pointing at the test folder (paths show
as ~/...), no run in flight (so no spinner or clock), scripted data only, and a cursor that does
not blink (see steady_cursor).
Update with: pytest tests/ui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

import pytest
from textual_fspicker.parts.directory_navigation import DirectoryEntry

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.core.chat.provenance import Provenance, VoteRow
from ensemble_tui.core.chat.runlog import Artifact, CallRecord, TurnRecord
from ensemble_tui.core.chat.session import ChatMessage, ModelOutput, Resubmission
from ensemble_tui.core.config import MissingKey
from ensemble_tui.core.provider import Usage
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier
from ensemble_tui.ui.screens.export_picker import ExportPicker
from ensemble_tui.ui.screens.links import LinkPicker
from ensemble_tui.ui.screens.pdf_file_open import PdfPicker
from ensemble_tui.ui.screens.quit_confirm import QuitConfirm
from ensemble_tui.ui.screens.style_picker import StylePicker
from tests.ui.conftest import show_pane, wait_until

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
HOME_ENV = "in the environment or in ~/.local/share/ensemble-tui/.env"  # key_places, for the default home

REPLY = """The paper proposes **sparse mixture routing** with a learned gate.

| Variant | Params | Score |
|---|---|---|
| Dense | 1.3B | 71.2 |
| Sparse | 1.3B | 74.8 |

Key points:

- the gate is trained jointly;
- load balancing uses an auxiliary loss.

```python
def route(x, gate):
    return gate(x).topk(2)
```

See https://example.org/paper for the appendix."""


@pytest.fixture
def snapshot_app(workspace, scripted, sample_pdf, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "attention.pdf").write_bytes(sample_pdf.read_bytes())
    (papers / "drafts").mkdir()
    session = workspace.session
    session.id = "2026-01-02_09-30-00"
    session.history = [
        ChatMessage(role="user", text="What does the paper propose?\nKeep it short."),
        ChatMessage(role="assistant", text=REPLY, sources=["https://example.org/paper"]),
    ]
    session.last_outputs = {
        "ChatGPT": ModelOutput(query="What does the paper propose?", text="ChatGPT's *proposal*.", model="gpt-5"),
        "Claude": ModelOutput(query="What does the paper propose?", text="Claude's proposal.", model="claude-x"),
    }
    session.resubmissions = [
        Resubmission(iteration=1, text="# Proposed Reply 1:\nFirst.\n\n# Remarks from the aggregator\nBe precise.")
    ]
    session.cost_usd = 0.0421
    session.last_mode = "all"
    workspace.select_pdf(papers / "attention.pdf")
    # The registry's words for a key not set, with the default home's place for it (the home here is temporary).
    gemini_keys = ["GEMINI_API_KEY", "GOOGLE_API_KEY"]
    workspace.attach_providers(dict(scripted), {"Gemini": MissingKey("Gemini", gemini_keys, HOME_ENV)})
    del scripted["Gemini"]
    return EnsembleApp(workspace, notifier=RecordingNotifier(), folder_opener=lambda _path: False)


async def steady_cursor(pilot) -> None:
    """Stop the focused widget's cursor blinking, so it is drawn whenever the screenshot is taken.

    The question box's cursor blinks every 0.5 s; the snapshots show it drawn, which held only
    while the screenshot came within the first half second. Hidden panes now mount after the
    first frame, which can push it past that on a busy machine.
    """
    focused = pilot.app.focused
    if focused is not None and hasattr(focused, "cursor_blink"):
        focused.cursor_blink = False
        await pilot.pause()


def show(pane_id: str):
    async def run_before(pilot) -> None:
        # The snapshot harness may call this before the app's on_mount has put the focus in the
        # question box, which would switch back to Chat: wait for start-up to finish first.
        await pilot.pause()
        await show_pane(pilot, pane_id)
        assert pilot.app.main.tabs.active == pane_id
        await steady_cursor(pilot)

    return run_before


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("pane_id", ["chat", "chatgpt", "claude", "gemini", "attachments", "resubmissions", "settings"])
def test_pane_layout(snap_compare, snapshot_app, pane_id, size):
    assert snap_compare(snapshot_app, terminal_size=size, run_before=show(pane_id))


@pytest.mark.parametrize("size", SIZES)
def test_empty_chat_layout(snap_compare, workspace, scripted, size):
    workspace.session.id = "2026-01-02_09-30-00"
    app = EnsembleApp(workspace, notifier=RecordingNotifier())

    async def started(pilot) -> None:
        await pilot.pause()  # start-up done: the question box has the focus
        await steady_cursor(pilot)

    assert snap_compare(app, terminal_size=size, run_before=started)


def test_footer_at_60x20(snap_compare, workspace, scripted):
    """Issue 35: at 60x20 the footer ended `^f ▏^p paletteH`; keys that do not fit are left out."""
    workspace.session.id = "2026-01-02_09-30-00"
    app = EnsembleApp(workspace, notifier=RecordingNotifier())

    async def started(pilot) -> None:
        await pilot.pause()
        await steady_cursor(pilot)

    assert snap_compare(app, terminal_size=(60, 20), run_before=started)


LONG_REPLY = "\n".join(
    [
        "**Attention** lets every token weigh every other token of the sequence.",
        "",
        *(f"{n}. Step {n} of the computation, explained in one line of plain words." for n in range(1, 36)),
        "",
        "That is the whole of it: forty lines of reply.",
    ]
)


@pytest.mark.parametrize("size", SIZES)
def test_chat_with_a_long_reply(snap_compare, snapshot_app, size):
    snapshot_app.workspace.session.history.append(ChatMessage(role="user", text="What is attention?"))
    snapshot_app.workspace.session.history.append(ChatMessage(role="assistant", text=LONG_REPLY))

    async def started(pilot) -> None:
        await pilot.pause()
        await steady_cursor(pilot)

    assert snap_compare(snapshot_app, terminal_size=size, run_before=started)


@pytest.mark.parametrize("size", SIZES)
def test_chat_with_a_voted_reply_and_who_wrote_it(snap_compare, snapshot_app, size):
    tally = [VoteRow("Claude", 1, 2.0, 2, 9.0, 9.5), VoteRow("ChatGPT", 2, 1.0, 1, 6.0, 7.0)]
    provenance = Provenance(line="All · Critique & vote · winner claude-x (2 pts)", style="vote", tally=tally)
    history = snapshot_app.workspace.session.history
    history.append(ChatMessage(role="user", text="Which lemma carries the proof?"))
    history.append(ChatMessage(role="assistant", text="Lemma 3: it bounds $\\epsilon_n$.", provenance=provenance))

    async def started(pilot) -> None:
        await pilot.pause()
        await steady_cursor(pilot)

    assert snap_compare(snapshot_app, terminal_size=size, run_before=started)


@pytest.fixture
def fixed_listing(monkeypatch):
    """The PDF picker's sizes and times, fixed: a folder's size depends on the file system and
    every time on when the test ran."""
    monkeypatch.setattr(
        DirectoryEntry, "_size", staticmethod(lambda path: "4096" if path.is_dir() else str(path.stat().st_size))
    )
    monkeypatch.setattr(DirectoryEntry, "_mtime", staticmethod(lambda _path: "2026-01-02 09:30:00"))


@pytest.mark.parametrize("size", SIZES)
def test_pdf_picker_layout(snap_compare, snapshot_app, fixed_listing, size):
    async def open_picker(pilot) -> None:
        await pilot.pause()
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, PdfPicker))
        picker = pilot.app.screen
        await wait_until(pilot, lambda: picker.listing.option_count == 3)  # .., drafts, attention.pdf
        await wait_until(pilot, lambda: picker.listing.highlighted == 2)
        await steady_cursor(pilot)

    assert snap_compare(snapshot_app, terminal_size=size, run_before=open_picker)


@pytest.mark.parametrize("size", SIZES)
def test_pdf_picker_refusal_layout(snap_compare, snapshot_app, fixed_listing, size):
    async def refuse(pilot) -> None:
        await pilot.pause()
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, PdfPicker))
        picker = pilot.app.screen
        await wait_until(pilot, lambda: picker.listing.highlighted == 2)
        await pilot.press(*"atention.pdf", "enter")
        await wait_until(pilot, lambda: bool(picker.message))
        await steady_cursor(pilot)

    assert snap_compare(snapshot_app, terminal_size=size, run_before=refuse)


@pytest.mark.parametrize("size", SIZES)
def test_history_layout(snap_compare, snapshot_app, size):
    workspace = snapshot_app.workspace
    workspace.store.save(workspace.session)

    async def open_history(pilot) -> None:
        await pilot.pause()
        await pilot.press("ctrl+g")
        await pilot.pause()
        await pilot.pause()
        await steady_cursor(pilot)  # the filter's cursor blinks: a loaded machine took it hidden

    assert snap_compare(snapshot_app, terminal_size=size, run_before=open_history)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "dialog",
    [
        lambda: StylePicker(Style.VOTE),
        lambda: ExportPicker(),
        lambda: QuitConfirm(),
        lambda: LinkPicker(["https://example.org/paper", "https://example.org/a/very/long/path/to/the/appendix/of/it"]),
    ],
    ids=["styles", "exports", "quit", "links"],
)
def test_list_dialog_layout(snap_compare, snapshot_app, dialog, size):
    async def open_dialog(pilot) -> None:
        await pilot.pause()
        await steady_cursor(pilot)  # the question box behind the dialog: its cursor, drawn or not, blinks
        pilot.app.push_screen(dialog())
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(snapshot_app, terminal_size=size, run_before=open_dialog)


def vote_record(session_id: str) -> TurnRecord:
    """A finished critique-and-vote run, every figure fixed."""
    usage = Usage(input_tokens=2200, output_tokens=120)
    calls = [
        CallRecord(provider, model, role, 1, latency, "ok", usage, cost)
        for provider, model, role, latency, cost in (
            ("ChatGPT", "gpt-5", "proposer", 4.2, 0.0040),
            ("Claude", "claude-x", "proposer", 5.1, 0.0084),
            ("ChatGPT", "gpt-5", "reviewer", 3.3, 0.0041),
            ("Claude", "claude-x", "reviewer", 2.9, 0.0085),
        )
    ]
    standings = [
        {"author": "Claude", "rank": 1, "points": 1.0, "first_places": 1, "mean_overall": 8.0, "mean_correctness": 9.0},
        {
            "author": "ChatGPT",
            "rank": 2,
            "points": 0.0,
            "first_places": 0,
            "mean_overall": 6.0,
            "mean_correctness": 7.0,
        },
    ]
    line = "*Vote: Claude's answer won with 1 Borda point and 1 of 2 first-place votes.*"
    return TurnRecord(
        session=session_id,
        mode="all",
        style="vote",
        query="Which lemma carries the proof?",
        started_at="2026-01-02T09:31:00",
        outcome="final",
        proposers_s=[5.1],
        calls=calls,
        artifacts=[
            Artifact("answer", "ChatGPT", "Lemma 2, through the **coupling** argument.", round=1),
            Artifact("answer", "Claude", "Lemma 3: it bounds the error term.", round=1),
            Artifact(
                "critique",
                "ChatGPT",
                '{"ranking": ["A"]}',
                round=1,
                data={"labels": {"A": "Claude"}, "accepted": True, "problem": None},
            ),
            Artifact("vote", "", line, data={"standings": standings, "ballots": 1}),
            Artifact("final", "", "Lemma 3: it bounds the error term.\n\n" + line),
        ],
        turn_cost_usd=0.025,
        session_cost_usd=0.0421,
    )


@pytest.mark.parametrize("size", SIZES)
def test_report_screen_layout(snap_compare, snapshot_app, size):
    snapshot_app.workspace.archive.save_turn(vote_record(snapshot_app.workspace.session.id))

    async def open_report(pilot) -> None:
        await pilot.pause()  # let start-up finish (see show())
        await pilot.press("ctrl+r")
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(snapshot_app, terminal_size=size, run_before=open_report)
