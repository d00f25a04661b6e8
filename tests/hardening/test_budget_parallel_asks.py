"""Parallel asks on one chat under the default $5 cap (issue 34 §2): a call kept out only by
other processes' calls in flight waits for them to settle, instead of a "Budget stop" at
$5.00 when $0.19 was spent. Eight `ask --demo` runs in the default (All) mode, after one opening
turn, all answer, and every turn is in the transcript. (A run of four checked the same with less
contention. Each run is a process of its own, forked with the SDKs imported: tests/forked.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import forked
from tests.core.helpers import restored_session
from tests.forked import ForkedCommand
from tests.support import process_environment, run_command


def start_ask(home: Path, question: str) -> ForkedCommand:
    """`ensemble-tui ask --demo` in a process of its own (forked with the SDKs imported: tests/forked.py)."""
    return forked.start(["ask", "--demo", "--home", str(home), question], process_environment(home.parent), home.parent)


@pytest.mark.parametrize("parallel", [8])
def test_parallel_demo_asks_on_one_chat_all_answer(home: Path, quick_demo: None, parallel: int) -> None:
    opening = run_command(home, "ask", "--demo", "Q0: the opening question")
    assert opening.returncode == 0, opening.stderr
    questions = [f"Q{n}: asked at the same time" for n in range(1, parallel + 1)]
    processes = {question: start_ask(home, question) for question in questions}
    results = {question: process.communicate(timeout=600) for question, process in processes.items()}

    failed = {q: err for q, (_out, err) in results.items() if processes[q].returncode != 0}
    assert not failed, failed
    session = restored_session(home)
    asked = [message.text for message in session.history if message.role == "user"]
    assert sorted(asked) == sorted(["Q0: the opening question", *questions])
    transcript = (home / "Chats" / f"{session.id}.md").read_text(encoding="utf-8")
    for question in questions:
        assert f"## You\n\n{question}\n\n" in transcript
    assert session.cost_usd <= session_cap(home)


def session_cap(home: Path) -> float:
    from ensemble_tui.core.workspace import Workspace

    return Workspace.open(home).settings.budget_usd
