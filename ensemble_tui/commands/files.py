"""`ensemble-tui files`: what the app has uploaded to the providers, and `--prune` to delete what
no chat uses now.

The list comes from the archive's upload registry, checked against each provider's own file
list (an upload the provider dropped, expired or deleted elsewhere, is struck off); a provider
that cannot be asked (no key, no network) is named in one line and its uploads are listed as
recorded. `--prune` deletes every upload whose PDF no chat has selected now
(core.upload_cleanup); a provider that refuses is reported in one line and the exit code is 1.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TextIO

from ensemble_tui.commands.context import CommandContext, Needs

if TYPE_CHECKING:
    from ensemble_tui.core.store.upload_registry import StoredUpload
    from ensemble_tui.core.workspace import Workspace

COLUMNS = ("PROVIDER", "FILE", "SIZE", "AGE", "CHATS", "STATE", "ID")


def add_parser(commands: Any) -> None:
    """The `files` subcommand, with `--home` and `--demo` as `ask` has them."""
    files = commands.add_parser(
        "files",
        help="list the PDFs the app uploaded to the providers; --prune deletes those no chat uses",
        description="List the PDFs the app uploaded to each provider (provider, file, size, age, chats). "
        "Uploads no chat has used for upload_retention_days (Settings.json) are deleted at start-up; "
        "--prune deletes now every upload whose PDF no chat has selected.",
    )
    files.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS, help="the home folder (as for ask)")
    files.add_argument(
        "--demo", action="store_true", default=argparse.SUPPRESS, help="the built-in simulator's uploads"
    )
    files.add_argument("--prune", action="store_true", help="delete the uploads no chat uses now")


NEEDS = Needs()  # the providers, to ask each what it still keeps


def run(args: argparse.Namespace, context: CommandContext) -> int:
    """List (and with `--prune`, first delete) the app's uploads; 0 unless a delete was refused."""
    return list_uploads(context.workspace, prune=args.prune)


def list_uploads(workspace: Workspace, *, prune: bool, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The listing (and the prune) with the providers attached; `out`/`err` default to
    sys.stdout/stderr as they are at the call, not at import."""
    import asyncio

    out, err = out or sys.stdout, err or sys.stderr
    try:
        return asyncio.run(_run(workspace, prune, out, err))
    except (sqlite3.Error, OSError) as exc:  # a read-only home or a broken archive: one line
        print(f"ensemble-tui: the list of uploads in {workspace.paths.archive} cannot be used ({exc}).", file=err)
        return 1


async def _run(workspace: Workspace, prune: bool, out: TextIO, err: TextIO) -> int:
    import asyncio

    from ensemble_tui.core.store.upload_registry import UploadRegistry
    from ensemble_tui.core.upload_cleanup import pdf_digests_in_use, prune_unused_uploads

    registry = UploadRegistry(workspace.archive)
    for line in await reconcile(workspace, registry):
        print(f"ensemble-tui: {line}", file=err)
    code = 0
    if prune:
        report = await prune_unused_uploads(workspace)
        for line in report.refusal_lines():
            print(f"ensemble-tui: {line}", file=err)
            code = 1
        freed = sum(upload.size for upload in report.deleted)
        print(f"Deleted {_count(len(report.deleted))} ({_size(freed)}) that no chat uses.", file=out)
    uploads = await asyncio.to_thread(registry.all)
    in_use = await asyncio.to_thread(pdf_digests_in_use, workspace)
    print(render_table(uploads, in_use, datetime.now().astimezone()), file=out)
    return code


async def reconcile(workspace: Workspace, registry: Any) -> list[str]:
    """Strike off uploads their provider no longer lists; one line per provider not asked."""
    import asyncio

    from ensemble_tui.core.provider import ProviderError

    uploads = await asyncio.to_thread(registry.all)
    lines: list[str] = []
    for label in sorted({upload.provider for upload in uploads}):
        provider = workspace.providers.get(label)
        if provider is None or not getattr(provider, "keeps_files", False):
            why = workspace.unavailable.get(label, f"{label} is not configured")
            lines.append(f"{why}; its uploads are listed as recorded.")
            continue
        try:
            listed = {remote.file_id for remote in await provider.list_files()}  # type: ignore[attr-defined]
        except ProviderError as exc:
            lines.append(f"{exc.message}; its uploads are listed as recorded.")
            continue
        for upload in uploads:
            if upload.provider == label and upload.file_id not in listed:
                try:
                    await asyncio.to_thread(registry.remove, label, upload.file_id)
                except sqlite3.Error:  # a read-only home: listed as recorded, struck off another time
                    continue
    return lines


def render_table(uploads: Sequence[StoredUpload], in_use: set[str], now: datetime) -> str:
    """The uploads as aligned columns, then a one-line total."""
    if not uploads:
        return "The app has no uploads at any provider."
    rows = [COLUMNS]
    for upload in uploads:
        state = "in use" if upload.sha256 in in_use else "unused"
        if upload.expires_at is not None:
            state += f", expires in {_span(upload.expires_at - now)}"
        rows.append(
            (
                upload.provider,
                upload.name,
                _size(upload.size),
                _span(now - upload.uploaded_at),
                str(len(upload.uses)),
                state,
                upload.file_id,
            )
        )
    widths = [max(len(row[index]) for row in rows) for index in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]
    unused = sum(1 for upload in uploads if upload.sha256 not in in_use)
    total = sum(upload.size for upload in uploads)
    lines.append(
        f"{_count(len(uploads))}, {_size(total)}; {unused} unused (`ensemble-tui files --prune` deletes them)."
    )
    return "\n".join(lines)


def _count(number: int) -> str:
    return f"{number} upload" + ("" if number == 1 else "s")


def _size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def _span(delta: Any) -> str:
    """A duration in its largest sensible unit, rounded: hours up to two days (Gemini's 48 h)."""
    seconds = max(0, round(delta.total_seconds()))
    for unit, length in (("d", 172_800), ("h", 3_600), ("min", 60)):
        if seconds >= length:
            length = 86_400 if unit == "d" else length
            return f"{round(seconds / length)} {unit}"
    return f"{seconds} s"
