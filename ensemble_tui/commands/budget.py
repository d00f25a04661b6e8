"""`ensemble-tui budget [--chat ID] [--release]`: what counts against a chat's cap, in parts
(spent, in flight, unconfirmed), and releasing the reservations of a turn cut off by a crash
(core/store/budget_ledger.py says why they count until released)."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ensemble_tui.commands.context import CommandContext, Needs, add_demo

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace

# Reads the home, and with --release writes the ledger it already has: it makes no home (a
# mistyped --home is named) and calls no provider.
NEEDS = Needs(home="read")


def add_parser(commands: Any) -> None:
    budget = commands.add_parser(
        "budget",
        help="show what counts against a chat's budget; --release frees what a crashed turn reserved",
        description="Show a chat's cost against its cap: money spent, calls in flight, and reservations of "
        "a turn whose process no longer runs (unconfirmed: the provider may have billed them). --release "
        "drops the unconfirmed ones, so the chat can go on.",
    )
    budget.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS, help="the home folder (as for ask)")
    add_demo(budget, "the demo's chats (as `ask --demo` keeps them)")
    budget.add_argument(
        "--chat", metavar="ID", help="the chat (an id from `ensemble-tui history`; default: the current)"
    )
    budget.add_argument("--release", action="store_true", help="release the chat's unconfirmed reservations")


def run(args: argparse.Namespace, context: CommandContext) -> int:
    return show_or_release(context.workspace, args)


def show_or_release(
    workspace: Workspace, args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """0 when shown (or released); 1 with one line on stderr if the chat or the history cannot be read."""
    out, err = out or sys.stdout, err or sys.stderr
    from ensemble_tui.core.money import cents
    from ensemble_tui.core.store.budget_ledger import release, tally
    from ensemble_tui.core.turn.costs import unconfirmed_phrase

    chat = str(args.chat or workspace.session.id)
    try:
        chats = {summary.id for summary in workspace.archive.sessions()}
        if chat not in chats and chat != workspace.session.id:
            print(f"ensemble-tui: no chat {chat} in the history; `ensemble-tui history` lists them.", file=err)
            return 1
        if args.release:
            warning = release(workspace.archive, chat)
            print(warning or f"Chat {chat} has no unconfirmed reservations; nothing released.", file=err)
        with workspace.archive.transaction() as db:
            counted = tally(db, chat)
    except (sqlite3.Error, OSError) as exc:
        print(f"ensemble-tui: the budget ledger cannot be read or written ({exc}).", file=err)
        return 1
    if not chats and not args.chat and not (counted.spent or counted.in_flight or counted.unconfirmed):
        print("No chats yet: nothing counts against a budget.", file=err)  # not a made-up chat's id
        return 0
    parts = [f"{cents(counted.spent)} spent"]
    if counted.in_flight > 0:
        parts.append(f"{cents(counted.in_flight)} reserved by calls in flight")
    if counted.unconfirmed > 0:
        parts.append(unconfirmed_phrase(counted.unconfirmed, counted.unconfirmed_since))
    simulated = " (simulated money)" if workspace.demo else ""  # a demo's: what real providers would charge
    print(f"chat {chat}: {', '.join(parts)}; cap {cents(workspace.settings.budget_usd)}{simulated}", file=out)
    return 0


def unconfirmed_note(workspace: Workspace, chat: str) -> str | None:
    """The line `history` adds under a chat that holds unconfirmed reservations; None if none."""
    from ensemble_tui.core.store.budget_ledger import tally
    from ensemble_tui.core.turn.costs import unconfirmed_phrase

    try:
        with workspace.archive.transaction() as db:
            counted = tally(db, chat)
    except sqlite3.Error:
        return None
    if counted.unconfirmed <= 0:
        return None
    phrase = unconfirmed_phrase(counted.unconfirmed, counted.unconfirmed_since)
    return f"  + {phrase}; `ensemble-tui budget --release --chat {chat}` frees it"
