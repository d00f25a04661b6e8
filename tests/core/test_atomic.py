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
