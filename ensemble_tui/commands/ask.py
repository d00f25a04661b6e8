"""`ensemble-tui ask`: one turn without the terminal UI, for scripts and quick questions.

This module is the command's parser and its argument checks only; the turn itself lives in
commands/ask_turn.py, imported when the command runs, so that `--help` and `--version` pay for
none of the engine (bench row 5.b)."""

from __future__ import annotations

import argparse
from typing import Any

from ensemble_tui.commands.context import CommandContext, Needs, add_common, bad_pdf

MODES = ("chatgpt", "claude", "gemini", "chatgpt-gemini", "all", "auto")
STYLES = ("aggregate", "council", "vote", "debate")


def restyle_conflict(question: str, mode: str | None, style: str | None, new: bool) -> str:
    """Why `ask --restyle` cannot take these arguments ("" when it can): it redoes the last turn
    of this chat, in that turn's mode, with no new question."""
    if question.strip():
        return "redoes the last turn: it takes no QUESTION"
    if mode is not None:
        return "keeps the last turn's mode: leave out --mode"
    if style is not None:
        return "is the new style: leave out --style"
    if new:
        return "redoes the last turn of this chat: leave out --new"
    return ""


def add_parser(commands: Any) -> None:
    ask = commands.add_parser(
        "ask",
        help="run one turn headless: the reply on stdout, status on stderr",
        description="Run one turn in the current session. The final reply goes to stdout, status lines "
        "to stderr; the exit code is 0 on a final reply. An empty QUESTION redoes the last reply.",
    )
    add_common(ask)
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
        "--fork",
        metavar="CHAT_ID:N",
        default=None,
        help="ask on a new branch of chat CHAT_ID holding its first N questions and their replies (the chat "
        "itself is left as it is); the branch's id is printed on stderr",
    )
    ask.add_argument(
        "--json",
        action="store_true",
        dest="as_json",
        help="print the whole turn as one JSON object on stdout: reply, provenance, claims, quote checks, costs",
    )
    ask.add_argument("question", metavar="QUESTION", nargs="?", default="", help="the question ('' to redo)")


def ask_check(args: argparse.Namespace) -> str | None:
    """Arguments `ask` cannot take: the line that says so (exit 2, nothing run). `--restyle`
    with a question, a mode or a style; a `--pdf` that is not there or not a PDF (context.bad_pdf)."""
    if (refused := bad_pdf(args)) is not None:
        return refused
    if args.fork is not None:
        return fork_conflict(args)
    if args.restyle is None:
        return None
    conflict = restyle_conflict(args.question, args.mode, args.style, args.new)
    return f"--restyle {conflict}" if conflict else None


def fork_conflict(args: argparse.Namespace) -> str | None:
    """Why `ask --fork` cannot take these arguments (None when it can)."""
    from ensemble_tui.core.store.fork import ForkError, ForkPoint

    try:
        ForkPoint.parse(args.fork)
    except ForkError as exc:
        return str(exc)
    if args.restyle is not None or args.new:
        return "--fork makes a new chat of its own: leave out --new and --restyle"
    if not args.question.strip():
        return "--fork asks a new question on the branch: give the QUESTION"
    return None


# The PDF's uploads wait until the turn's providers are known (ask_turn.called_by).
NEEDS = Needs(upload_now=False, check=ask_check)


def run(args: argparse.Namespace, context: CommandContext) -> int:
    from ensemble_tui.commands.ask_turn import ask_turn

    return ask_turn(args, context)
