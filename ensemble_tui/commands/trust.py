"""`ensemble-tui trust [DIR]`, `trust --list`, `trust --revoke DIR`: which folders may be the home
when the app starts in them (core/store/trust.py says why and how trust is kept)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from ensemble_tui.commands.context import CommandContext, Needs

NEEDS = Needs(home="none")  # trust decides which folder may be a home: it opens none


def add_parser(commands: Any) -> None:
    trust = commands.add_parser(
        "trust",
        help="let a folder holding Prompts/ and Configurations/ be the home when started in it",
        description="Trust DIR (default: the current folder) as a home: started there, the app reads its "
        "configurations and its .env, which name the keys and the servers they are sent to. Trust covers "
        "the provider files, prompts and .env as they are now; after a change, trust the folder again.",
    )
    trust.add_argument("folder", metavar="DIR", nargs="?", default=".", help="the folder to trust (default: .)")
    which = trust.add_mutually_exclusive_group()
    which.add_argument("--list", action="store_true", help="list the trusted folders and whether they changed")
    which.add_argument("--revoke", metavar="DIR", help="stop trusting DIR")


def run(args: argparse.Namespace, context: CommandContext) -> int:
    """0 when done; 1 with one line on stderr if the folder is not a home or trust cannot be saved."""
    out, err = sys.stdout, sys.stderr
    from ensemble_tui.core.store import trust
    from ensemble_tui.core.store.home import holds_home

    try:
        if args.list:
            return _list(out, err)
        if args.revoke:
            if trust.revoke(Path(args.revoke)):
                print(f"No longer trusted: {Path(args.revoke).expanduser().resolve()}", file=out)
                return 0
            print(f"ensemble-tui: {args.revoke} was not trusted.", file=err)
            return 1
        folder = Path(args.folder).expanduser().resolve()
        if not holds_home(folder):
            print(f"ensemble-tui: {folder} holds no Prompts/ and Configurations/; it cannot be a home.", file=err)
            return 1
        trusted = trust.trust(folder)
    except trust.UntrustableFile as exc:
        print(f"ensemble-tui: cannot trust {args.folder}: {exc}.", file=err)
        return 1
    except OSError as exc:
        print(f"ensemble-tui: cannot save trust in {trust.trust_file()} ({exc.strerror or exc}).", file=err)
        return 1
    print(f"Trusted {trusted}: its provider files, prompts and .env as they are now.", file=out)
    return 0


def _list(out: TextIO, err: TextIO) -> int:
    from ensemble_tui.core.store import trust

    folders = trust.trusted_folders()
    if not folders:
        print("No trusted folders: `ensemble-tui trust DIR` adds one.", file=err)
        return 0
    notes = {"trusted": "trusted", "changed": "changed since trusted (trust it again)", "missing": "missing"}
    for folder in folders:
        print(f"{folder.path}  {folder.trusted_at}  {notes[folder.state]}", file=out)
    return 0
