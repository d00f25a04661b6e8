"""`ensemble-tui history`: the home's past chats listed, newest first, one line each, a branch
under its parent (`export --chat ID` takes an id from here)."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ensemble_tui.commands.budget import unconfirmed_note
from ensemble_tui.commands.context import CommandContext, Needs, add_demo
from ensemble_tui.core.money import amount

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace

# Only reads the home: opened as it is, nothing written (not even a new home).
NEEDS = Needs(home="read")


def add_parser(commands: Any) -> None:
    history = commands.add_parser(
        "history",
        help="list past chats: id, date, first question, replies, cost",
        description="List the chats of the home folder, newest first; `export --chat ID` takes an id from here.",
    )
    history.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS, help="the home folder (as for ask)")
    add_demo(history, "the demo's chats (as `ask --demo` keeps them)")


def run(args: argparse.Namespace, context: CommandContext) -> int:
    return run_history(context.workspace)


def run_history(workspace: Workspace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The chats, newest first, one line each; `out`/`err` default to sys.stdout/stderr as they are now."""
    from ensemble_tui.core.chat.session import fork_phrase  # here: `--help` imports no command's work
    from ensemble_tui.core.store.fork import branch_lead, under_parents

    out, err = out or sys.stdout, err or sys.stderr
    try:
        chats = workspace.archive.sessions()
    except sqlite3.Error as exc:
        print(f"ensemble-tui: the history cannot be read ({exc}).", file=err)
        return 1
    if not chats:
        print("No chats yet: ask a question in the app or with `ensemble-tui ask`.", file=err)
        return 0
    width = max(len(chat.id) for chat in chats)
    simulated = workspace.demo  # a demo's costs: what real providers would charge
    cost = "SIM. COST" if simulated else "COST"
    cost_width = max(7, len(cost))
    print(f"{'ID':<{width}}  {'DATE':<16}  {'REPLIES':>10}  {cost:<{cost_width}}  FIRST QUESTION", file=out)
    for chat, depth in under_parents(chats):
        date = chat.id[:16].replace("_", " ").replace("-", ":", 4).replace(":", "-", 2)
        question = " ".join(chat.name.split())  # the name given in the app, else the first question, as there
        if depth:  # a branch, under its parent, as the app's history lists it
            question = f"{branch_lead(depth)}{fork_phrase(chat.fork_turn or 0)} · {question}"
        question = question if len(question) <= 60 else question[:59] + "…"
        replies = f"{chat.turns} repl{'y' if chat.turns == 1 else 'ies'}"
        spent = amount(chat.cost_usd, simulated=simulated) if simulated else f"${chat.cost_usd:.4f}"  # one format
        print(f"{chat.id:<{width}}  {date}  {replies:>10}  {spent:<{cost_width}}  {question}", file=out)
        if (note := unconfirmed_note(workspace, chat.id)) is not None:  # a crashed turn's reservations
            print(note, file=out)
    if simulated:
        print("Demo chats: their costs are simulated, what real providers would charge.", file=err)
    return 0
