"""The console script answers --version and --help without starting the app."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ensemble_tui import __version__
from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.workspace import Workspace
from tests.support import process_environment, run_command


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


def test_every_command_is_one_module_with_its_parser_its_run_and_its_needs() -> None:
    """The command line only dispatches: each command, the app included, adds its own parser
    and runs with the context the one shared set-up made (commands/context.py)."""
    from ensemble_tui import cli
    from ensemble_tui.commands import app
    from ensemble_tui.commands.context import Needs

    assert list(cli.SUBCOMMANDS) == ["ask", "files", "history", "search", "export", "eval", "budget", "trust"]
    for name, command in [("app", app), *cli.SUBCOMMANDS.items()]:
        assert command.__name__ == f"ensemble_tui.commands.{name}"
        assert callable(command.add_parser) and callable(command.run)
        assert isinstance(command.NEEDS, Needs)
    assert {name: command.NEEDS.home for name, command in cli.SUBCOMMANDS.items()} == {
        "ask": "write",
        "files": "write",
        "history": "read",  # history and export write nothing, not even a new home
        "search": "read",  # its one write: the index of a home made before it
        "export": "read",
        "eval": "write",
        "budget": "read",  # its one write: --release, in the ledger the home has
        "trust": "none",
    }
    assert cli.SUBCOMMANDS["eval"].NEEDS.simulator == "eval"  # the eval demo's, started by the context


def test_a_reader_that_stops_reading_ends_the_command_without_a_traceback(home: Path) -> None:
    """`ensemble-tui history | head`: the pipe closed under the command raised BrokenPipeError,
    and the user saw a traceback. Here the pipe is closed before the command writes at all."""
    workspace = Workspace.open(home)
    workspace.session.history = [ChatMessage(role="user", text="Q"), ChatMessage(role="assistant", text="A")]
    workspace.persist()
    workspace.close()
    command = [sys.executable, "-m", "ensemble_tui", "history", "--home", str(home)]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=process_environment(home.parent)
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert process.wait(timeout=60) == 1
    assert "Traceback" not in errors and "BrokenPipeError" not in errors
