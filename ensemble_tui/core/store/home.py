"""The home folder: where prompts, configurations, chats and the session live."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from ensemble_tui.core.errors import HomeError

HOME_ENV = "ENSEMBLE_TUI_HOME"
SEEDED_FOLDERS = ("Prompts", "Configurations")


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


def _holds_home(folder: Path) -> bool:
    return all((folder / name).is_dir() for name in SEEDED_FOLDERS)


def resolve_home(explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path:
    """`--home`, else $ENSEMBLE_TUI_HOME, else the current folder if it looks like a home,
    else the platform's user data folder."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    from_env = os.environ.get(HOME_ENV)
    if from_env:
        return Path(from_env).expanduser().resolve()
    here = (cwd or Path.cwd()).resolve()
    if _holds_home(here):
        return here
    return Path(platformdirs.user_data_dir("ensemble-tui", appauthor=False))


def seed_home(root: Path) -> HomePaths:
    """Create the home folder and copy in any default prompt or configuration file it lacks.

    Existing files are never touched, so the user's edits survive upgrades.
    """
    paths = HomePaths(root)
    source = defaults_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        paths.chats.mkdir(exist_ok=True)
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
