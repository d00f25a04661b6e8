"""The commands that only read a home (`history`, `search`, `export`) and a `--home` that is not
there: a mistyped path says so, where it said "No chats yet" (as if the chats were gone) or
"Nothing found". A home that exists but holds no chat still says that."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import run_command


@pytest.mark.parametrize("command", [("history",), ("search", "heron"), ("export", "--last", "--format", "md")])
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
