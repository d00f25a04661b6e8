"""`history` writes every cost in one format (issue 35 polish): it mixed `$0.1990` and `$1.78`."""

from __future__ import annotations

from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.workspace import Workspace
from tests.support import run_command


def test_history_lists_every_cost_to_the_same_precision(home) -> None:
    workspace = Workspace.open(home)
    for cost in (0.199, 1.78):
        session = workspace.session
        session.history = [ChatMessage(role="user", text=f"cost {cost}"), ChatMessage(role="assistant", text="ok")]
        session.cost_usd = cost
        workspace.store.save(session)
        workspace.session = workspace.store.new_session(session)
    listed = run_command(home, "history")
    assert listed.returncode == 0, listed.stderr
    assert "$0.1990" in listed.stdout and "$1.7800" in listed.stdout, listed.stdout
