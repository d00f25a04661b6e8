"""A path as messages show it: the user's home folder as `~`, shorter to read and stable in
snapshots. The UI and the provider messages (where a key goes) say paths the same way."""

from __future__ import annotations

from pathlib import Path


def display_path(path: str | Path) -> str:
    """`path` with the user's home folder shown as `~`."""
    resolved = Path(path)
    try:
        return "~/" + resolved.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(resolved)
