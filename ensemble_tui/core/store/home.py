"""The home folder: where prompts, configurations, chats and the session live."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from ensemble_tui.core.errors import HomeError
from ensemble_tui.core.store.trust import DOTENV_NAME, is_trusted, was_trusted
from ensemble_tui.core.text.paths import display_path

HOME_ENV = "ENSEMBLE_TUI_HOME"
SEEDED_FOLDERS = ("Prompts", "Configurations")
PRIVATE_FOLDER = 0o700  # the home, Chats/ and Logs/: for the user alone
PRIVATE_FILE = 0o600
ARCHIVE_FILES = ("History.sqlite3", "History.sqlite3-wal", "History.sqlite3-shm")


@dataclass(frozen=True)
class HomePaths:
    """Every path the app reads or writes, derived from one root folder."""

    root: Path

    @property
    def prompts(self) -> Path:
        return self.root / "Prompts"

    @property
    def configurations(self) -> Path:
        return self.root / "Configurations"

    @property
    def settings_file(self) -> Path:
        return self.configurations / "Settings.json"

    @property
    def chats(self) -> Path:
        return self.root / "Chats"

    @property
    def session_file(self) -> Path:
        return self.root / "Session.json"

    @property
    def exports(self) -> Path:
        return self.root / "Exports"

    @property
    def archive(self) -> Path:
        return self.root / "History.sqlite3"

    @property
    def logs(self) -> Path:
        return self.root / "Logs"

    @property
    def drafts(self) -> Path:
        return self.root / "Drafts"

    @property
    def cache(self) -> Path:
        """Derived data that can be rebuilt, such as each PDF's extracted text (core/paper/pdf_pages.py)."""
        return self.root / "Cache"

    @property
    def dotenv(self) -> Path:
        """The user's keys and base URLs (providers/credentials.py reads it; the app never writes it)."""
        return self.root / DOTENV_NAME


def key_places(home: Path, here: Path) -> str:
    """Where a missing API key can be set, for the messages that ask for one: the environment or
    the home's `.env`. A `.env` in the current folder is the usual place for keys, and is not read
    unless that folder is the home (credentials.py says why), so a message that finds one says so."""
    places = f"in the environment or in {display_path(HomePaths(home).dotenv)}"
    stray = here / DOTENV_NAME
    if stray.is_file() and here.resolve() != home.resolve():
        places += " (the .env in this folder is not read: it is not the home folder)"
    return places


def defaults_root() -> Path:
    """Folder holding the packaged default `Prompts/` and `Configurations/`.

    An installed wheel carries them in `ensemble_tui/defaults/`; a source checkout (editable
    install) has them at the repository's top level.
    """
    package = Path(__file__).resolve().parents[2]  # ensemble_tui/, from core/store/home.py
    bundled = package / "defaults"
    if (bundled / "Prompts").is_dir():
        return bundled
    return package.parent


def holds_home(folder: Path) -> bool:
    """True if `folder` looks like a home: it holds `Prompts/` and `Configurations/`."""
    return all((folder / name).is_dir() for name in SEEDED_FOLDERS)


def user_home() -> Path:
    """The platform's user data folder: the home when the user chose none."""
    return Path(platformdirs.user_data_dir("ensemble-tui", appauthor=False))


def resolve_home(
    explicit: str | os.PathLike[str] | None = None,
    cwd: Path | None = None,
    notice: Callable[[str], None] | None = None,
) -> Path:
    """`--home`, else $ENSEMBLE_TUI_HOME, else the current folder if it looks like a home and the
    user trusted it (`ensemble-tui trust`, core/store/trust.py), else the user data folder.

    A folder the user did not choose may name any variable as a key and any server as a base
    URL, so an untrusted one is never the home; `notice` gets one line naming the command.
    """
    if explicit:
        return Path(explicit).expanduser().resolve()
    from_env = os.environ.get(HOME_ENV)
    if from_env:
        return Path(from_env).expanduser().resolve()
    here = (cwd or Path.cwd()).resolve()
    fallback = user_home()
    if here != fallback.resolve() and holds_home(here):
        if is_trusted(here):
            return here
        if notice is not None:
            why = "has changed since it was trusted" if was_trusted(here) else "is not trusted"
            command = "ensemble-tui trust ." if cwd is None else f"ensemble-tui trust {here}"
            used = display_path(fallback)
            notice(f"This folder holds Prompts/ and Configurations/ but {why}; using {used}. To use it: {command}")
    return fallback


def make_private(root: Path) -> list[str]:
    """Take group and other access away from an existing home's folder and its private parts
    (History.sqlite3 with -wal and -shm, .env, Session.json, Chats/, Logs/ and the logs); returns the
    names of what was loosened, for one line at start. A shared folder (sticky, like /tmp) or one
    owned by someone else keeps its own mode; its parts are still tightened."""
    paths = HomePaths(root)
    targets: list[tuple[Path, int]] = []
    try:
        info = root.stat()
    except OSError:
        return []
    if not info.st_mode & stat.S_ISVTX and info.st_uid == getattr(os, "getuid", lambda: info.st_uid)():
        targets.append((root, PRIVATE_FOLDER))
    for name in ARCHIVE_FILES:
        targets.append((root / name, PRIVATE_FILE))
    targets += [(paths.dotenv, PRIVATE_FILE), (paths.session_file, PRIVATE_FILE)]
    targets += [(paths.chats, PRIVATE_FOLDER), (paths.logs, PRIVATE_FOLDER)]
    if paths.logs.is_dir():
        targets += [(path, PRIVATE_FILE) for path in sorted(paths.logs.iterdir()) if path.is_file()]
    tightened = []
    for path, mode in targets:
        try:
            current = stat.S_IMODE(path.lstat().st_mode)
            if path.is_symlink() or not current & 0o077:
                continue
            path.chmod(current & mode)
        except OSError:
            continue
        tightened.append("the folder" if path == root else path.name + ("/" if mode == PRIVATE_FOLDER else ""))
    return tightened


def seed_home(root: Path) -> HomePaths:
    """Create the home folder and copy in any default prompt or configuration file it lacks.

    Existing files are never touched, so the user's edits survive upgrades.
    """
    paths = HomePaths(root)
    source = defaults_root()
    try:
        root.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER)
        paths.chats.mkdir(exist_ok=True, mode=PRIVATE_FOLDER)
        paths.logs.mkdir(exist_ok=True, mode=PRIVATE_FOLDER)
        for folder in SEEDED_FOLDERS:
            for default in sorted((source / folder).rglob("*")):
                if not default.is_file() or default.name == "Settings.json" or default.name.startswith("."):
                    continue
                target = root / folder / default.relative_to(source / folder)
                if not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(default, target)
    except OSError as exc:
        raise HomeError(f"Cannot set up the home folder {root} ({exc.strerror}) - choose another with --home") from None
    return paths
