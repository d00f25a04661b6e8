"""Recovery files: a reply whose turn could not be saved is written where it can be, so a full
disk or a broken History.sqlite3 never costs the user an answer they paid for.

The home's `Recovered/` comes first; if it cannot be written (a read-only or full home), the
user's state folder, then the cache folder, then the temporary folder. Each file is written
atomically and for the user alone (0600), like every other file the app writes.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from ensemble_tui.core.store.atomic import atomic_write_text

RECOVERED = "Recovered"


def recovery_folders(home: Path) -> list[Path]:
    """Where a recovery file may go, best first."""
    import platformdirs

    return [
        home / RECOVERED,
        Path(platformdirs.user_state_dir("ensemble-tui", appauthor=False)) / RECOVERED,
        Path(platformdirs.user_cache_dir("ensemble-tui", appauthor=False)) / RECOVERED,
        Path(tempfile.gettempdir()),
    ]


def write_recovery(text: str, name: str, folders: Iterable[Path]) -> Path | None:
    """Write `text` as `<name>-<time>.md` in the first folder that takes it (created 0700 if
    missing); None if none does."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for folder in folders:
        target = folder / f"ensemble-tui-{name}-{stamp}-{os.getpid()}.md"
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            atomic_write_text(target, text)
            os.chmod(target, 0o600)
        except OSError:
            continue
        return target
    return None
