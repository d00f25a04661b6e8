"""The console script answers --version and --help without starting the app."""

from __future__ import annotations

from ensemble_tui import __version__
from tests.support import run_command


def test_version() -> None:
    """A process: `python -m ensemble_tui` is the entry point a script runs."""
    result = run_command(None, "--version", timeout=60, process=True)
    assert result.returncode == 0 and result.stdout.strip() == f"ensemble-tui {__version__}"


def test_help_lists_the_options_and_the_ask_command() -> None:
    result = run_command(None, "--help")
    assert result.returncode == 0
    for option in ("--home", "--pdf", "--demo", "ask"):
        assert option in result.stdout
    ask_help = run_command(None, "ask", "--help")
    assert ask_help.returncode == 0 and "--mode" in ask_help.stdout and "--new" in ask_help.stdout
