"""`ensemble-tui export`: a chat, or one of its runs, exported from a script as the same files the
palette's exports write."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ensemble_tui.commands.context import CommandContext, Needs, add_demo

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace


# Only reads the home: opened as it is, nothing written (not even a new home).
NEEDS = Needs(home="read")


def add_parser(commands: Any) -> None:
    export = commands.add_parser(
        "export",
        help="export a chat, or one of its runs, as Markdown, JSON or self-contained HTML",
        description="Write the same file as the palette's exports. Without -o it goes to Exports/ in the "
        "home folder and its path is printed.",
    )
    export.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS, help="the home folder (as for ask)")
    which = export.add_mutually_exclusive_group()
    which.add_argument("--chat", metavar="ID", help="the chat to export (an id from `ensemble-tui history`)")
    which.add_argument("--last", action="store_true", help="the newest chat (default: the current chat)")
    export.add_argument("--run", metavar="N", type=int, help="export run N of the chat (1 is its first) instead")
    export.add_argument("--format", required=True, choices=("md", "json", "html"), help="the file's format")
    export.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write here instead of Exports/ ('-' for stdout; a FIFO or a device is written to, a symlink's "
        "target replaced)",
    )
    add_demo(export, "the demo's chats (as `ask --demo` keeps them)")


def run(args: argparse.Namespace, context: CommandContext) -> int:
    return run_export(context.workspace, args)


def run_export(
    workspace: Workspace, args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """0 with the file written; 1 with one line on stderr if the chat or run is not there."""
    out, err = out or sys.stdout, err or sys.stderr
    from ensemble_tui.core.records.export import chat_stem, export_session, export_turn, run_stem, write_export
    from ensemble_tui.core.text.counts import plural

    try:
        chat_id = _chat_id(workspace, args)
        session = workspace.store.archived(chat_id)
        turns = [stored.record for stored in workspace.archive.turns(chat_id)]
    except (sqlite3.Error, LookupError) as exc:
        print(f"ensemble-tui: {exc}", file=err)
        return 1
    if session is None:
        print(f"ensemble-tui: no chat {chat_id} in the history; `ensemble-tui history` lists them.", file=err)
        return 1
    if not session.history:  # the current chat, made at start, before its first question
        print(f"ensemble-tui: chat {chat_id} has no messages yet: ask a question first.", file=err)
        return 1
    if args.run is not None:
        if not turns:
            print(f"ensemble-tui: chat {chat_id} has no runs yet; export the whole chat without --run.", file=err)
            return 1
        if not 1 <= args.run <= len(turns):
            print(
                f"ensemble-tui: chat {chat_id} has {plural(len(turns), 'run')}; --run takes 1 to {len(turns)}.",
                file=err,
            )
            return 1
        stem, content = run_stem(chat_id, args.run), export_turn(turns[args.run - 1], args.format)
    else:
        stem, content = chat_stem(chat_id), export_session(session, turns, args.format)
    try:
        if args.output == "-":
            out.write(content)
            out.flush()
        elif args.output:
            write_output(Path(args.output), content)
        else:
            print(write_export(workspace.paths.exports, stem, args.format, content), file=out)
    except OSError as exc:
        where = args.output or "Exports/"
        print(f"ensemble-tui: cannot write the export to {where} ({exc.strerror or exc}).", file=err)
        return 1
    return 0


def write_output(path: Path, content: str) -> None:
    """Write an export where `-o` says, as a shell redirection would: a FIFO, a device or a
    terminal is written to (never replaced by a regular file); a symlink keeps pointing where it
    did, its target replaced atomically; anything else is replaced atomically."""
    import os
    import stat

    from ensemble_tui.core.store.atomic import atomic_write_text

    try:
        mode: int | None = path.stat().st_mode  # through any symlink
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "it is a folder")
    if mode is not None and not stat.S_ISREG(mode):  # a FIFO, a device, /dev/stdout: written in place
        descriptor = os.open(path, os.O_WRONLY | os.O_NOCTTY)
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(content)
        return
    target = Path(os.path.realpath(path))  # the link's target, so the link stays
    if not target.parent.is_dir():  # a shell creates no folder either (a dangling link's, say)
        raise FileNotFoundError(2, f"the folder {target.parent} does not exist")
    kept = stat.S_IMODE(mode) if mode is not None else None  # an existing file keeps its mode
    atomic_write_text(target, content, kept)


def _chat_id(workspace: Workspace, args: argparse.Namespace) -> str:
    if args.chat:
        return str(args.chat)
    if args.last:
        chats = workspace.archive.sessions()
        if not chats:
            raise LookupError("no chats yet: ask a question first.")
        return chats[0].id
    return workspace.session.id
