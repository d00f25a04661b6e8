"""Command line: `ensemble-tui` opens the app; `ensemble-tui ask` runs one turn headless.

It parses the arguments and hands over to bootstrap.py (the wiring), headless.py and
ui/launch.py; nothing imports this module. Heavy imports happen inside the commands, so
`--version` and `--help` answer at once.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ensemble_tui import __version__, budget_command, eval_command, export_command, files_command, trust_command
from ensemble_tui.bootstrap import collector_hold, open_workspace, shut_down

MODES = ("chatgpt", "claude", "gemini", "chatgpt-gemini", "all", "auto")
STYLES = ("aggregate", "council", "vote", "debate")
# Commands that only read the home: they open it as it is and write nothing (not even a new home).
READ_ONLY_COMMANDS = ("history", "export")


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
        default=None,  # "all"; None tells --restyle that no mode was asked for
        help=f"which models answer: {', '.join(MODES)}, or the name of a provider added in Configurations/ "
        "(default: all). auto: the cheapest strong model answers twice, and the full All turn runs only "
        "if the two answers disagree",
    )
    ask.add_argument(
        "--style",
        choices=STYLES,
        default=None,  # "aggregate"
        help="how several models deliberate: the aggregator loop (default), a council with peer ranking, "
        "critique and vote, or a multi-round debate",
    )
    ask.add_argument(
        "--restyle",
        choices=STYLES,
        metavar="STYLE",
        default=None,
        help=f"redo the last turn in another style ({', '.join(STYLES)}), reusing its proposals: "
        "no proposer is asked again; takes no QUESTION, --mode or --style",
    )
    ask.add_argument("--new", action="store_true", help="start a new chat first")
    ask.add_argument(
        "--json",
        action="store_true",
        dest="as_json",
        help="print the whole turn as one JSON object on stdout: reply, provenance, claims, quote checks, costs",
    )
    ask.add_argument("question", metavar="QUESTION", nargs="?", default="", help="the question ('' to redo)")
    files_command.add_parser(commands)
    export_command.add_parsers(commands)
    eval_command.add_parser(commands)
    budget_command.add_parser(commands)
    for name in ("history", "export", "eval"):  # `ask --demo` then `history --demo` find the same demo chats
        _add_demo(commands.choices[name], "the demo's chats (as `ask --demo` keeps them)")
    trust_command.add_parser(commands)  # the one subcommand with no home folder
    return parser


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="home folder for prompts, configurations and chats (default: $ENSEMBLE_TUI_HOME, the current "
        "folder if you trusted it with `ensemble-tui trust`, else the user data folder)",
    )
    parser.add_argument("--pdf", metavar="PATH", default=argparse.SUPPRESS, help="select this PDF for the session")
    _add_demo(parser, "run against the built-in simulator: no API keys, no network")


def _add_demo(parser: argparse.ArgumentParser, help: str) -> None:
    """`--demo`: the demo's own home folder (bootstrap.demo_home), unless `--home` names one."""
    parser.add_argument("--demo", action="store_true", default=argparse.SUPPRESS, help=help)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    home: str | None = getattr(args, "home", None)
    pdf: str | None = getattr(args, "pdf", None)
    demo: bool = getattr(args, "demo", False)
    from ensemble_tui.core.errors import EnsembleError

    if args.command == "trust":
        return trust_command.run(args)
    with collector_hold(args.command):
        try:
            workspace = open_workspace(home, demo, for_reading=args.command in READ_ONLY_COMMANDS)
        except EnsembleError as exc:
            print(f"ensemble-tui: {exc}", file=sys.stderr)
            return 2
        try:
            if args.command == "files":
                for warning in workspace.warnings:
                    print(f"ensemble-tui: {warning}", file=sys.stderr)
                return files_command.run(workspace, prune=args.prune, demo=demo)
            if args.command == "history":
                return export_command.run_history(workspace)
            if args.command == "export":
                return export_command.run_export(workspace, args)
            if args.command == "eval":
                return eval_command.run(workspace, args, demo=demo)
            if args.command == "budget":
                return budget_command.run(workspace, args)
            if args.command == "ask":
                from ensemble_tui.headless import ask

                return ask(
                    workspace,
                    question=args.question,
                    mode=args.mode,
                    style=args.style,
                    restyle=args.restyle,
                    new=args.new,
                    pdf=pdf,
                    demo=demo,
                    as_json=args.as_json,
                )
            from ensemble_tui.ui.launch import launch

            return launch(workspace, pdf=pdf, demo=demo)
        finally:
            shut_down(workspace)
