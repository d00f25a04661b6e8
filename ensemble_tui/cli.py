"""Command line: `ensemble-tui` opens the app; `ensemble-tui ask` runs one turn headless.

It builds the parser from the command modules (ensemble_tui/commands/) and hands the one the
user named its arguments and the shared context (commands/context.py); nothing imports this
module. Heavy imports happen inside the commands, so `--version` and `--help` answer at once.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ensemble_tui import __version__
from ensemble_tui.commands import app, ask, budget, export, files, history, search, trust
from ensemble_tui.commands import eval as eval_command
from ensemble_tui.commands.context import SetUpFailed, command_context, say

# The subcommands, in the order --help lists them; without one, the app runs.
SUBCOMMANDS = {
    "ask": ask,
    "files": files,
    "history": history,
    "search": search,
    "export": export,
    "eval": eval_command,
    "budget": budget,
    "trust": trust,
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ensemble-tui",
        description="Ask several LLMs about a paper at once; an aggregator writes the final reply.",
        epilog="Run 'ensemble-tui ask --help' for the headless command.",
    )
    parser.add_argument("--version", action="version", version=f"ensemble-tui {__version__}")
    app.add_parser(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in SUBCOMMANDS.values():
        command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    command = SUBCOMMANDS[args.command] if args.command else app
    try:
        with command_context(args, command.NEEDS) as context:
            code = command.run(args, context)
        sys.stdout.flush()  # here, not at exit, so that a reader gone away is caught below
        return code
    except BrokenPipeError:
        return output_unread()
    except SetUpFailed as exc:
        say(exc.line)
        return 2
    except ModuleNotFoundError as exc:
        # A part of the package missing from an install: say so plainly instead of a traceback.
        if not (exc.name or "").startswith("ensemble_tui."):
            raise
        print(f"ensemble-tui: this install lacks {exc.name} - reinstall ensemble-tui.", file=sys.stderr)
        return 2


def output_unread() -> int:
    """The reader of the output went away (`ensemble-tui history | head`): exit 1 without a
    traceback, the rest of the output sent nowhere (the Python docs' note on SIGPIPE, under the
    signal module; without it the interpreter's last flush fails again at exit)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no file behind stdout (a test's capture)
        pass
    return 1


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The arguments; what argparse does not know is refused, unless the command takes it as
    words of its own (`search` reads `-word` as a word to exclude, not as an option).

    argparse reads a word that begins with `-h` (`-hard`) as `-h` given `ard`, and stops on it:
    such words are held out of the parse and offered to the command like the other unknown words;
    a command that does not take them has them parsed again, and argparse says what it says."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    held = [word for word in words if len(word) > 2 and word.startswith("-h")]
    args, unknown = parser.parse_known_args([word for word in words if word not in held])
    take_words = getattr(SUBCOMMANDS.get(args.command), "take_words", None)
    after_command = words[words.index(args.command) + 1 :] if args.command in words else []  # not before it
    if held and (take_words is None or not all(word in after_command for word in held)):
        args, unknown = parser.parse_known_args(words)
    else:
        unknown += held
    if unknown and not (
        take_words is not None and all(word in after_command for word in unknown) and take_words(args, unknown)
    ):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args
