"""The console script answers --version and --help without starting the app."""

from __future__ import annotations

import subprocess
import sys

from ensemble_tui import __version__


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ensemble_tui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_version() -> None:
    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"ensemble-tui {__version__}"


def test_help_lists_the_options_and_the_ask_command() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    for option in ("--home", "--pdf", "--demo", "ask"):
        assert option in result.stdout
    ask_help = run_cli("ask", "--help")
    assert ask_help.returncode == 0 and "--mode" in ask_help.stdout and "--new" in ask_help.stdout
