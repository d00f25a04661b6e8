"""Atomic file writes: a crash leaves each file either as before or as after."""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

# The temporary name `atomic_write_text` gives (tempfile.mkstemp's 8 random characters), and the
# home's folders it writes in: a home may also be a project folder, whose own files stay.
_OWN_TEMPORARY = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
APP_FOLDERS = ("Prompts", "Configurations", "Chats", "Exports", "Logs", "Drafts", "Cache")


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    """Write `text` to `path` through a temporary file in the same folder, then rename.

    The temporary file is flushed and fsynced before the rename, so readers never see a
    half-written file, whatever moment the process dies. It is the user's alone (0600) unless
    `mode` says otherwise (a file outside the home keeping the mode it had).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise


def aside_path(path: Path) -> Path:
    """Where an unreadable file is kept aside (beside it, stamped with the time), so the user
    can still open it while a fresh one takes its place."""
    return path.with_name(f"{path.name}.broken-{datetime.now():%Y%m%d-%H%M%S}")


def remove_stale_temporaries(home: Path, older_than_s: float) -> int:
    """Delete the temporary files that killed writes of the app left behind in the home: named
    as `atomic_write_text` names them, in the home itself or one of its own folders (APP_FOLDERS);
    never a data file, never a file of anyone else's (a home can be a project folder too).

    Only files older than `older_than_s` go, so a second instance writing right now keeps its own.
    """
    now = time.time()
    removed = 0
    candidates = [*home.glob(".*.tmp"), *(path for name in APP_FOLDERS for path in (home / name).rglob(".*.tmp"))]
    for path in candidates:
        if not _OWN_TEMPORARY.match(path.name):
            continue
        try:
            if path.is_file() and not path.is_symlink() and now - path.stat().st_mtime >= older_than_s:
                path.unlink()
                removed += 1
        except OSError:
            continue
    return removed


def atomic_write_json(path: Path, data: Any) -> None:
    """Serialise `data` as indented JSON and write it atomically."""
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
