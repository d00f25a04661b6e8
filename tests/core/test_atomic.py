"""A crash while writing leaves the old file whole and no temporary file behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ensemble_tui.core.store import atomic
from ensemble_tui.core.store.atomic import atomic_write_json, atomic_write_text


def test_failed_rename_keeps_the_previous_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "Session.json"
    atomic_write_json(target, {"turns": 1})
    before = target.read_text()

    def crash(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", crash)
    with pytest.raises(OSError):
        atomic_write_json(target, {"turns": 2})
    assert target.read_text() == before
    assert os.listdir(tmp_path) == ["Session.json"]


def test_write_replaces_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "t.md"
    atomic_write_text(target, "long old content " * 100)
    atomic_write_text(target, "short")
    assert target.read_text() == "short"


def test_start_up_removes_only_the_app_s_own_temporaries(tmp_path: Path) -> None:
    """Issue 34 §6: a home used as a project folder keeps its own `.tmp` files; a killed write's
    temporary in the app's folders goes."""
    from ensemble_tui.core.workspace import Workspace

    home = tmp_path / "project"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / ".draft.tmp").write_text("the user's draft")
    (home / ".draft.tmp").write_text("another")
    (home / "Chats").mkdir()
    (home / "Chats" / ".abc.json.k3x_9q0z.tmp").write_text("{")
    (home / "notes" / ".abc.json.k3x_9q0z.tmp").write_text("the user's, named alike")
    Workspace.open(home, stale_after_s=0)
    assert (home / "notes" / ".draft.tmp").read_text() == "the user's draft"
    assert (home / ".draft.tmp").exists() and (home / "notes" / ".abc.json.k3x_9q0z.tmp").exists()
    assert not (home / "Chats" / ".abc.json.k3x_9q0z.tmp").exists()
