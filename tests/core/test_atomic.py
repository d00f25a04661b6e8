"""A crash while writing leaves the old file whole and no temporary file behind."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ensemble_tui.core import atomic
from ensemble_tui.core.atomic import atomic_write_json, atomic_write_text


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


def test_an_older_snapshot_never_overwrites_a_newer_one(tmp_path: Path) -> None:
    from ensemble_tui.core.home import seed_home
    from ensemble_tui.core.session import ChatMessage, SessionData, SessionStore

    store = SessionStore(seed_home(tmp_path / "home"))
    session = SessionData()
    session.history.append(ChatMessage(role="user", text="old state"))
    older = store.snapshot(session)
    session.history.append(ChatMessage(role="assistant", text="new state"))
    newer = store.snapshot(session)
    assert store.write(newer) is True
    assert store.write(older) is False  # a slow worker thread finishing late
    assert "new state" in store.paths.session_file.read_text()
    assert "new state" in store.transcript_path(session).read_text()


async def test_a_background_save_writes_the_session_as_it_was_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ensemble_tui.core.session import ChatMessage
    from ensemble_tui.core.workspace import Workspace

    handed_over: list[Callable[[], None]] = []

    async def slow_thread(work: Callable[[], None]) -> None:
        handed_over.append(work)  # the worker thread gets to it later

    workspace = Workspace.open(tmp_path / "home")
    workspace.session.history.append(ChatMessage(role="user", text="asked first"))
    monkeypatch.setattr(asyncio, "to_thread", slow_thread)
    await workspace.persist_in_background()
    workspace.session.history.append(ChatMessage(role="assistant", text="added while saving"))
    workspace.session.cost_usd = 9.5
    handed_over[0]()
    saved = workspace.paths.session_file.read_text()
    assert "asked first" in saved and "added while saving" not in saved and "9.5" not in saved
    monkeypatch.undo()
    await workspace.persist_in_background()  # the next save has it all
    assert "added while saving" in workspace.paths.session_file.read_text()
