"""The upload registry in the archive: what it keeps, across reopening, in archives made before
it existed; and the retention setting in Settings.json."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path

from ensemble_tui.core.settings import load_settings
from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.store.upload_registry import StoredUpload, UploadRegistry, utc_now
from ensemble_tui.core.workspace import Workspace


def upload(file_id: str = "file-1", sha: str = "aa", *, age_days: float = 0, expires_in: timedelta | None = None):
    uploaded = utc_now() - timedelta(days=age_days)
    expires = uploaded + expires_in if expires_in is not None else None
    return StoredUpload("ChatGPT", file_id, file_id, sha, 1234, "paper.pdf", uploaded, expires)


def test_an_upload_is_found_by_content_after_the_archive_is_reopened(tmp_path: Path) -> None:
    path = tmp_path / "History.sqlite3"
    archive = RunArchive(path)
    UploadRegistry(archive).add(upload(), "chat-1")
    archive.close()
    registry = UploadRegistry(RunArchive(path))
    found = registry.find("ChatGPT", "aa")
    assert found is not None and found.file_id == "file-1" and found.size == 1234
    assert [use.session for use in found.uses] == ["chat-1"]
    assert registry.find("Claude", "aa") is None  # per provider
    assert registry.find("ChatGPT", "bb") is None  # per content


def test_an_expired_or_nearly_expired_upload_is_not_reused(tmp_path: Path) -> None:
    registry = UploadRegistry(RunArchive(tmp_path / "History.sqlite3"))
    registry.add(upload("old", age_days=2, expires_in=timedelta(hours=48)), None)
    assert registry.find("ChatGPT", "aa") is None
    registry.add(upload("soon", expires_in=timedelta(minutes=3)), None)
    assert registry.find("ChatGPT", "aa") is None  # a call sent with it could outlive it
    registry.add(upload("fresh", expires_in=timedelta(hours=48)), None)
    assert registry.find("ChatGPT", "aa").file_id == "fresh"  # type: ignore[union-attr]


def test_uses_by_chat_set_when_an_upload_was_last_used(tmp_path: Path) -> None:
    registry = UploadRegistry(RunArchive(tmp_path / "History.sqlite3"))
    registry.add(upload("a", age_days=10), "chat-1")
    registry.add(upload("b", "bb", age_days=10), "chat-1")
    registry.used("ChatGPT", "b", "chat-2", utc_now() - timedelta(days=1))
    stale = registry.unused_since(utc_now() - timedelta(days=7))
    assert [item.file_id for item in stale] == ["a"]
    (b,) = [item for item in registry.all() if item.file_id == "b"]
    assert sorted(use.session for use in b.uses) == ["chat-1", "chat-2"]
    registry.remove("ChatGPT", "a")
    assert [item.file_id for item in registry.all()] == ["b"]


def test_an_archive_made_before_the_registry_gains_its_tables(home: Path) -> None:
    home.mkdir(parents=True)
    old = sqlite3.connect(home / "History.sqlite3")
    old.execute(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, first_question TEXT NOT NULL DEFAULT '', "
        "turns INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0, "
        "updated_at TEXT NOT NULL DEFAULT (datetime('now')), data TEXT NOT NULL)"
    )
    old.execute("INSERT INTO sessions (id, first_question, turns, data) VALUES ('s1', 'Q?', 1, '{}')")
    old.commit()
    old.close()
    workspace = Workspace.open(home)
    registry = UploadRegistry(workspace.archive)
    registry.add(upload(), workspace.session.id)
    assert [item.file_id for item in registry.all()] == ["file-1"]
    assert [summary.id for summary in workspace.archive.sessions()] == ["s1"]  # the old chats are intact
    workspace.close()


def test_retention_defaults_to_seven_days_and_old_settings_files_still_load(tmp_path: Path) -> None:
    path = tmp_path / "Settings.json"
    path.write_text(json.dumps({"models": {}, "temperature": 0.5}))  # written before the field existed
    loaded = load_settings(path, {})
    assert loaded.warning is None and loaded.settings.upload_retention_days == 7
    path.write_text(json.dumps({"upload_retention_days": 0}))
    assert load_settings(path, {}).warning is not None  # out of range: set aside, defaults used
