"""The home holds every message and proposal: it is made for the user alone (issue 24 §4)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from ensemble_tui.bootstrap import open_workspace
from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.workspace import Workspace


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def saved_chat(home: Path) -> Workspace:
    """A home with a saved chat, its archive still open (so -wal and -shm exist)."""
    workspace = open_workspace(home)
    workspace.session.history.append(ChatMessage(role="user", text="private question"))
    workspace.persist()
    return workspace


def test_a_new_home_is_for_the_user_alone(home: Path) -> None:
    workspace = saved_chat(home)
    assert workspace.archive.sessions()  # the chat is in the archive
    for name in ("History.sqlite3", "History.sqlite3-wal", "History.sqlite3-shm", "Session.json"):
        assert mode(home / name) == 0o600, name
    for folder in (home, home / "Chats", home / "Logs"):
        assert mode(folder) == 0o700, folder
    for transcript in (home / "Chats").iterdir():
        assert mode(transcript) == 0o600
    workspace.close()


def test_an_existing_home_is_tightened_with_one_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved_chat(home).close()
    capsys.readouterr()
    (home / "Logs" / "ensemble-tui.log").write_text("a warning\n")
    for path, loose in [
        (home, 0o755),
        (home / "History.sqlite3", 0o644),
        (home / "Logs", 0o755),
        (home / "Logs" / "ensemble-tui.log", 0o644),
    ]:
        path.chmod(loose)
    open_workspace(home).close()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "private" in lines[0] and str(home) in lines[0]
    assert mode(home) == mode(home / "Logs") == 0o700
    assert mode(home / "History.sqlite3") == mode(home / "Logs" / "ensemble-tui.log") == 0o600
    open_workspace(home).close()
    assert capsys.readouterr().err == ""  # said once, when there was something to tighten


@pytest.fixture
def root_logger():
    """The root logger's handlers as they were, put back after the test."""
    import logging

    root = logging.getLogger()
    before = list(root.handlers)
    yield root
    for handler in root.handlers[len(before) :]:
        handler.close()
    root.handlers[:] = before


def test_the_log_is_for_the_user_alone_from_its_first_line(tmp_path: Path, root_logger) -> None:
    """Issue 34 §6: Logs/ensemble-tui.log was created 0644 and tightened only at the next start."""
    from ensemble_tui.logs import LOG_FILE, configure_logging

    configure_logging(tmp_path / "Logs")
    root_logger.warning("a first line")
    assert mode(tmp_path / "Logs" / LOG_FILE) == 0o600
    assert "a first line" in (tmp_path / "Logs" / LOG_FILE).read_text()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full to play a full disk")
def test_a_full_disk_under_the_log_prints_no_logging_error(
    tmp_path: Path, root_logger, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 34 §6: `ask` on a full disk printed "--- Logging error ---" and a traceback per record."""
    from ensemble_tui.logs import LOG_FILE, configure_logging

    (tmp_path / "Logs").mkdir()
    (tmp_path / "Logs" / LOG_FILE).symlink_to("/dev/full")  # every write: ENOSPC
    configure_logging(tmp_path / "Logs")
    for number in range(3):
        root_logger.warning("record %d", number)
    captured = capsys.readouterr()
    assert "Logging error" not in captured.err and "Traceback" not in captured.err
