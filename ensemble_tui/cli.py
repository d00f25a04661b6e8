"""Command line: `ensemble-tui` opens the app; `ensemble-tui ask` runs one turn headless.

Heavy imports (Textual, the provider SDKs) happen inside the commands, so `--version` and
`--help` answer at once.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from ensemble_tui import __version__, files_command

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace
    from ensemble_tui.simulator.standby import StandbyDemo

MODES = ("chatgpt", "claude", "gemini", "chatgpt-gemini", "all")
STYLES = ("aggregate", "council", "vote", "debate")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ensemble-tui",
        description="Ask several LLMs about a paper at once; an aggregator writes the final reply.",
        epilog="Run 'ensemble-tui ask --help' for the headless command.",
    )
    parser.add_argument("--version", action="version", version=f"ensemble-tui {__version__}")
    _add_common(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    ask = commands.add_parser(
        "ask",
        help="run one turn headless: the reply on stdout, status on stderr",
        description="Run one turn in the current session. The final reply goes to stdout, status lines "
        "to stderr; the exit code is 0 on a final reply. An empty QUESTION redoes the last reply.",
    )
    _add_common(ask)
    ask.add_argument(
        "--mode",
        default="all",
        help=f"which models answer: {', '.join(MODES)}, or the name of a provider added in Configurations/ "
        "(default: all)",
    )
    ask.add_argument(
        "--style",
        choices=STYLES,
        default="aggregate",
        help="how several models deliberate: the aggregator loop (default), a council with peer ranking, "
        "critique and vote, or a multi-round debate",
    )
    ask.add_argument("--new", action="store_true", help="start a new chat first")
    ask.add_argument("question", metavar="QUESTION", nargs="?", default="", help="the question ('' to redo)")
    files_command.add_parser(commands)
    return parser


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="home folder for prompts, configurations and chats (default: $ENSEMBLE_TUI_HOME, the current "
        "folder if it holds Prompts/ and Configurations/, else the user data folder)",
    )
    parser.add_argument("--pdf", metavar="PATH", default=argparse.SUPPRESS, help="select this PDF for the session")
    parser.add_argument(
        "--demo",
        action="store_true",
        default=argparse.SUPPRESS,
        help="run against the built-in simulator: no API keys, no network",
    )


def demo_home() -> Path:
    """Demo chats live apart from real ones, so simulated replies never mix into them."""
    import platformdirs

    return Path(platformdirs.user_data_dir("ensemble-tui", appauthor=False)) / "demo"


def open_workspace(home: str | None, demo: bool) -> Workspace:
    from ensemble_tui.core.home import resolve_home
    from ensemble_tui.core.workspace import Workspace

    root = resolve_home(home) if home or not demo else demo_home()
    return Workspace.open(root)


def simulator_context(demo: bool) -> AbstractContextManager[dict[str, str] | None]:
    """The demo simulator, running for the life of the command; yields its environment."""
    if not demo:
        return nullcontext(None)
    from ensemble_tui.simulator.demo import demo_environment

    return demo_environment()


def demo_on_standby(demo: bool) -> AbstractContextManager[StandbyDemo | None]:
    """The app's demo simulator: its address for the providers now, its server started by the
    app after its first frame (simulator/standby.py)."""
    if not demo:
        return nullcontext(None)
    from ensemble_tui.simulator.standby import standby_demo

    return standby_demo()


def attach_providers(workspace: Workspace, env: dict[str, str] | None) -> None:
    from ensemble_tui.providers.registry import build_providers

    providers, unavailable = build_providers(workspace, env=env)
    workspace.attach_providers(providers, unavailable)


def collector_hold(command: str | None) -> AbstractContextManager[None]:
    """The app starts without automatic garbage collection, the process being its own (see
    ui/collector.py: 30-45 ms of the time to the first frame); `ask` leaves the collector alone."""
    if command is not None:
        return nullcontext()
    from ensemble_tui.ui.collector import start_up_hold

    return start_up_hold()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    home: str | None = getattr(args, "home", None)
    pdf: str | None = getattr(args, "pdf", None)
    demo: bool = getattr(args, "demo", False)
    from ensemble_tui.core.errors import EnsembleError

    with collector_hold(args.command):
        try:
            workspace = open_workspace(home, demo)
        except EnsembleError as exc:
            print(f"ensemble-tui: {exc}", file=sys.stderr)
            return 2
        try:
            if args.command == "files":
                return files_command.run(workspace, prune=args.prune, demo=demo)
            if args.command == "ask":
                from ensemble_tui.headless import ask

                return ask(
                    workspace,
                    question=args.question,
                    mode=args.mode,
                    style=args.style,
                    new=args.new,
                    pdf=pdf,
                    demo=demo,
                )
            from ensemble_tui.ui.launch import launch

            return launch(workspace, pdf=pdf, demo=demo)
        finally:
            workspace.close()
