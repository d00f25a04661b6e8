"""SVG snapshots pinning the layout of each pane at 120x40.

Deterministic by construction: a fixed session id, HOME pointing at the test folder (paths show
as ~/...), no run in flight (so no spinner or clock), and scripted data only.
Update with: pytest tests/ui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

import pytest

from ensemble_tui.core.session import ChatMessage, ModelOutput, Resubmission
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier

SIZE = (120, 40)

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
    workspace.select_pdf(sample_pdf)
    workspace.attach_providers(dict(scripted), {"Gemini": "Gemini: no API key"})
    del scripted["Gemini"]
    return EnsembleApp(workspace, notifier=RecordingNotifier(), folder_opener=lambda _path: False)


def show(pane_id: str):
    async def run_before(pilot) -> None:
        pilot.app.show_pane(pane_id)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("pane_id", ["chat", "chatgpt", "gemini", "attachments", "resubmissions", "settings"])
def test_pane_layout(snap_compare, snapshot_app, pane_id):
    assert snap_compare(snapshot_app, terminal_size=SIZE, run_before=show(pane_id))


def test_empty_chat_layout(snap_compare, workspace):
    workspace.session.id = "2026-01-02_09-30-00"
    app = EnsembleApp(workspace, notifier=RecordingNotifier())
    assert snap_compare(app, terminal_size=SIZE)
