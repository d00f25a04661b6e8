"""The commands that only read a home (`history`, `search`, `export`, `budget`) and a `--home` that is not
there: a mistyped path says so, where it said "No chats yet" (as if the chats were gone) or
"Nothing found". A home that exists but holds no chat still says that."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import run_command


@pytest.mark.parametrize(
    "command", [("history",), ("search", "heron"), ("export", "--last", "--format", "md"), ("budget",)]
)
def test_a_home_that_is_not_there_is_named_and_nothing_is_made(tmp_path: Path, command: tuple[str, ...]) -> None:
    missing = tmp_path / "typo"
    result = run_command(missing, *command)
    assert result.returncode == 2
    assert (
        result.stderr.strip() == f"ensemble-tui: there is no home folder at {missing}: check the path given to --home"
    )
    assert not missing.exists()


def test_a_home_without_chats_still_says_no_chats_yet(tmp_path: Path) -> None:
    home = tmp_path / "empty"
    home.mkdir()
    result = run_command(home, "history")
    assert result.returncode == 0 and "No chats yet" in result.stderr


def test_budget_in_a_home_without_chats_says_so_and_makes_nothing(tmp_path: Path) -> None:
    """It printed a chat id that no history held, after making a whole home to find one."""
    home = tmp_path / "empty"
    home.mkdir()
    result = run_command(home, "budget")
    assert result.returncode == 0
    assert result.stderr.strip() == "No chats yet: nothing counts against a budget."
    assert list(home.iterdir()) == []


def test_budget_shows_the_homes_own_cap(tmp_path: Path) -> None:
    """Read without changing the home, the cap is still the one Settings.json holds."""
    from ensemble_tui.core.chat.session import ChatMessage
    from ensemble_tui.core.workspace import Workspace

    home = tmp_path / "home"
    workspace = Workspace.open(home)
    workspace.update_settings(budget_usd=2.5)
    workspace.session.history = [ChatMessage(role="user", text="Q"), ChatMessage(role="assistant", text="A")]
    workspace.persist()
    workspace.close()
    result = run_command(home, "budget")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"chat {workspace.session.id}: $0.00 spent; cap $2.50"
