"""Opening a folder in the desktop's file manager, when there is a desktop."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def open_folder(path: Path) -> bool:
    """Start the file manager on `path` without waiting; False when there is no desktop to use.

    Never raises: over SSH or in a bare console the app shows the path instead.
    """
    try:
        if sys.platform == "darwin":
            command = ["open", str(path)]
        elif sys.platform == "win32":
            os.startfile(str(path))  # type: ignore[attr-defined]  # noqa: S606 - Windows only
            return True
        elif os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
            command = ["xdg-open", str(path)]
        else:
            return False
        quiet = subprocess.DEVNULL
        subprocess.Popen(command, stdin=quiet, stdout=quiet, stderr=quiet, start_new_session=True)
    except OSError:
        return False
    return True
