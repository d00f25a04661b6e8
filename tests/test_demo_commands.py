"""`--demo` from the command line: every subcommand that reads a home takes it and finds the same
demo chats, and the demo writes nothing outside the home it uses. In this process through
`cli.main` (tests.support.run_command), the demo without its pauses: each command's own process
smoke test is in tests/test_ask.py, tests/test_export_command.py and tests/test_files_command.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support import run_command


def run(user: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`ensemble-tui ARGS` with `user` as the user's home folder (so the user data folder is in it)."""
    folders = {"HOME": str(user), "XDG_DATA_HOME": str(user / "data")}
    return run_command(None, *args, env=folders, cwd=user)


def files_under(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file()}


def test_ask_demo_then_history_and_export_demo_find_the_demo_chat(tmp_path: Path, quick_demo: None) -> None:
    user = tmp_path / "user"
    user.mkdir()
    asked = run(user, "ask", "--demo", "--mode", "claude", "What does the demo do?")
    assert asked.returncode == 0, asked.stderr
    listed = run(user, "history", "--demo")
    assert listed.returncode == 0, listed.stderr
    assert "What does the demo do?" in listed.stdout
    assert "No chats yet" in run(user, "history").stderr  # the real home has none
    exported = run(user, "export", "--demo", "--last", "--format", "md", "-o", "-")
    assert exported.returncode == 0 and "What does the demo do?" in exported.stdout


def test_demo_with_a_home_writes_only_inside_that_home(tmp_path: Path, sample_pdf: Path, quick_demo: None) -> None:
    user = tmp_path / "user"
    user.mkdir()
    home = tmp_path / "chosen"
    asked = run(user, "ask", "--demo", "--home", str(home), "--mode", "claude", "--pdf", str(sample_pdf), "Why?")
    assert asked.returncode == 0, asked.stderr
    assert files_under(user) == set()  # no demo-provider-files.json in the user data folder
    assert "demo-provider-files.json" in files_under(home)  # the demo account lives in the home
    again = run(user, "files", "--demo", "--home", str(home))
    assert again.returncode == 0 and sample_pdf.name in again.stdout  # and is found there next time
