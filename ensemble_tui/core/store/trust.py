"""Folders the user has trusted as a home, like direnv's `allow`.

A folder found in the current directory can name any variable as a provider's key and any
server as its base URL (its `Configurations/*.json`, its `.env`), so it is used only once the
user has trusted it with `ensemble-tui trust`. Trust is kept in the user's config folder (never
in the folder itself, which could plant it), in `Trusted.json` (0600, in a 0700 folder), with a
digest of the folder's provider files, its prompts (what every model is told, and so what it
may be told to leak) and `.env` as they were: if any changes, the folder is untrusted until
trusted again. Settings.json and Keymap.json hold no address or key name and may change freely.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import platformdirs

from ensemble_tui.core.store.atomic import atomic_write_json

CONFIG_ENV = "ENSEMBLE_TUI_CONFIG"  # overrides the user's config folder (tests, sandboxes)
TRUST_FILE = "Trusted.json"
FREE_FILES = frozenset({"Settings.json", "Keymap.json"})  # may change without breaking trust
DOTENV_NAME = ".env"

TrustState = Literal["trusted", "changed", "missing"]


@dataclass(frozen=True)
class TrustedFolder:
    path: Path
    state: TrustState
    trusted_at: str


def config_dir() -> Path:
    """Where trust is remembered: $ENSEMBLE_TUI_CONFIG, else the platform's user config folder."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir("ensemble-tui", appauthor=False))


def trust_file() -> Path:
    return config_dir() / TRUST_FILE


class UntrustableFile(OSError):
    """A guarded path that is no regular file (a folder named `.env`, a FIFO named like a provider
    file): its content cannot be vouched for, so the folder cannot be trusted as it is."""


def guarded_files(folder: Path) -> list[Path]:
    """The files whose content trust covers: every provider file, every prompt, and the `.env`."""
    configurations = folder / "Configurations"
    files = sorted(path for path in configurations.glob("*.json") if path.name not in FREE_FILES)
    prompts = sorted(path for path in (folder / "Prompts").rglob("*") if not path.is_dir() or path.is_symlink())
    return [*files, *prompts, folder / DOTENV_NAME]


def _content(path: Path) -> bytes | None:
    """A guarded file's bytes; None if it does not exist. Opened without blocking (a FIFO would
    wait for a writer forever) and read only if it is a regular file (UntrustableFile if not)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        descriptor = None
    mode = os.fstat(descriptor).st_mode if descriptor is not None else stat.S_IFDIR
    if not stat.S_ISREG(mode):
        if descriptor is not None:
            os.close(descriptor)
        kind = "a folder, not a file" if stat.S_ISDIR(mode) else "not a regular file"
        raise UntrustableFile(f"{path} is {kind} - remove it, or make it a file")
    with os.fdopen(descriptor, "rb") as handle:
        return handle.read()


def folder_digest(folder: Path) -> str:
    """SHA-256 over the names and contents of `guarded_files` (a missing `.env` counts as
    missing, so adding one later breaks trust too). UntrustableFile names a guarded path that is
    no regular file."""
    digest = hashlib.sha256()
    for path in guarded_files(folder):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        content = _content(path)
        if content is None:
            digest.update(b"missing\0")
            continue
        digest.update(hashlib.sha256(content).hexdigest().encode() + b"\0")
    return digest.hexdigest()


def _read() -> dict[str, dict[str, str]]:
    """The trusted folders as stored; a missing or unreadable file trusts nothing."""
    try:
        data = json.loads(trust_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    folders = data.get("folders") if isinstance(data, dict) else None
    if not isinstance(folders, dict):
        return {}
    return {
        path: entry
        for path, entry in folders.items()
        if isinstance(entry, dict) and isinstance(entry.get("digest"), str)
    }


def _write(folders: dict[str, dict[str, str]]) -> None:
    """Written atomically (a 0600 temporary file renamed into place) in a 0700 folder."""
    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write_json(trust_file(), {"version": 1, "folders": folders})


def _key(folder: Path) -> str:
    return str(folder.expanduser().resolve())


def is_trusted(folder: Path) -> bool:
    """True if the user trusted `folder` and its provider files and `.env` are unchanged since."""
    entry = _read().get(_key(folder))
    try:
        return entry is not None and entry["digest"] == folder_digest(folder.resolve())
    except OSError:
        return False


def was_trusted(folder: Path) -> bool:
    """True if `folder` was trusted once, whatever its files hold now (to say why it is not now)."""
    return _key(folder) in _read()


def trust(folder: Path) -> Path:
    """Trust `folder` as it is now; returns its resolved path."""
    resolved = folder.expanduser().resolve()
    folders = _read()
    folders[str(resolved)] = {
        "digest": folder_digest(resolved),
        "trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    _write(folders)
    return resolved


def revoke(folder: Path) -> bool:
    """Forget `folder`; False if it was not trusted."""
    folders = _read()
    if folders.pop(_key(folder), None) is None:
        return False
    _write(folders)
    return True


def trusted_folders() -> list[TrustedFolder]:
    """Every trusted folder, with whether its files still match."""
    found = []
    for path, entry in sorted(_read().items()):
        folder = Path(path)
        if not folder.is_dir():
            state: TrustState = "missing"
        else:
            try:
                state = "trusted" if folder_digest(folder) == entry["digest"] else "changed"
            except OSError:
                state = "changed"
        found.append(TrustedFolder(folder, state, str(entry.get("trusted_at", ""))))
    return found
