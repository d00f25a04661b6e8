"""A new home says nothing about its permissions (issue 35 polish): "made the home folder …
private to you" on the first command read like a warning; an existing loose home still says it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ensemble_tui.bootstrap import open_workspace


def test_a_new_empty_home_is_made_private_without_a_word(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    home.chmod(0o755)
    open_workspace(home)
    assert capsys.readouterr().err == ""
    assert home.stat().st_mode & 0o077 == 0


def test_an_existing_home_that_others_could_read_says_it_was_tightened(tmp_path, capsys):
    home = tmp_path / "home"
    open_workspace(home)
    home.chmod(0o755)
    open_workspace(home)
    assert "private to you" in capsys.readouterr().err


def test_the_user_data_folder_made_as_the_demos_parent_becomes_a_home_without_a_word(tmp_path, capsys, monkeypatch):
    """A first `--demo` makes the user data folder as the parent of its own home, with the
    default mode; the first command without `--demo` then makes that folder the real home."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("ENSEMBLE_TUI_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    demo = open_workspace(None, demo=True)
    real_home = demo.paths.root.parent
    assert demo.paths.root.name == "demo" and real_home.stat().st_mode & 0o077  # the default mode
    demo.close()
    capsys.readouterr()
    workspace = open_workspace(None)
    assert workspace.paths.root == real_home
    assert capsys.readouterr().err == ""
    assert real_home.stat().st_mode & 0o077 == 0
    workspace.close()
