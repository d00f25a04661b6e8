"""Everything one running app holds: home paths, configurations, settings, session, providers.

The Textual app and the `ask` command both open a Workspace and drive its Engine; this is the
single place where files are read at start and state changes are persisted.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ensemble_tui.core.chat.modes import Mode, RunMode
from ensemble_tui.core.chat.session import SessionData
from ensemble_tui.core.config import PROVIDERS, ProviderConfig, load_provider_configs, retirement_line
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.paper.pdf import PdfInfo, pdf_info
from ensemble_tui.core.prompts import PromptLibrary
from ensemble_tui.core.provider import Provider
from ensemble_tui.core.settings import Settings, load_settings, read_settings, save_settings
from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.store.atomic import remove_stale_temporaries
from ensemble_tui.core.store.home import HomePaths, seed_home
from ensemble_tui.core.store.session_store import SessionStore

log = logging.getLogger(__name__)


@dataclass
class Workspace:
    paths: HomePaths
    configs: dict[str, ProviderConfig]
    settings: Settings
    session: SessionData
    store: SessionStore
    prompts: PromptLibrary
    archive: RunArchive
    providers: dict[str, Provider] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)  # provider -> why (e.g. missing key)
    warnings: list[str] = field(default_factory=list)  # one line each, shown at start
    home_notices: list[str] = field(default_factory=list)  # how the home was chosen or tightened (bootstrap)
    config_problems: dict[str, str] = field(default_factory=dict)  # provider -> why its file is unusable
    # A demo (`--demo`): the providers are the simulator, so every cost is what real providers
    # would charge, shown as simulated (core/money.py); the budget guard counts it all the same.
    demo: bool = False
    starting_pdf: Path | None = None  # the PDF a new chat starts with (the demo's paper), if any
    prepared_pdf: Path | None = None  # the PDF whose uploads were started last
    # The providers the chat's PDF is uploaded to ahead of a turn: None, every one (the app, where
    # any key may start the next turn); `ask` names the ones its turn calls, so the paper goes to
    # no provider the user did not ask, and no other SDK is imported for it.
    upload_to: frozenset[str] | None = None

    @classmethod
    def open(cls, root: Path, *, stale_after_s: float = 600.0) -> Workspace:
        """Seed and read the home folder, restore the last session; raise EnsembleError if the
        folder is unusable. Temporary files left by an earlier crash are cleared."""
        paths = seed_home(root)
        remove_stale_temporaries(paths.root, stale_after_s)
        found = load_provider_configs(paths.configurations)
        configs = found.configs
        loaded = load_settings(paths.settings_file, configs)
        archive = RunArchive(paths.archive)
        store = SessionStore(paths, archive)
        session, session_warning = store.load()
        warnings = [w for w in (read_only(paths.root), loaded.warning, session_warning) if w]
        warnings += list(found.problems.values())
        workspace = cls(paths, configs, loaded.settings, session, store, PromptLibrary(paths.prompts), archive)
        if not paths.session_file.exists() and not read_only(
            paths.root
        ):  # a first start: the chat exists from now on, so a
            try:  # draft typed in it finds it again at the next start
                workspace.persist(transcript=False)
            except OSError as exc:
                warnings.append(f"Cannot save in {paths.root} ({exc.strerror}); fix its permissions or use --home.")
        workspace.warnings.extend(warnings)
        workspace.config_problems = dict(found.problems)
        for provider, config in configs.items():
            model = loaded.settings.models.get(provider, config.default_model)
            if config.model(model) is None:
                workspace.warnings.append(
                    f"{provider}: model {model} is not in {provider} configuration; costs are estimated cautiously."
                )
            elif (line := retirement_line(provider, config, model)) is not None:
                workspace.warnings.append(line)
        return workspace

    @classmethod
    def for_reading(cls, root: Path) -> Workspace:
        """The home as the commands that only read it (history, export) see it: nothing is
        created, seeded or repaired, and a home that does not exist reads as one without chats.
        Its settings are read as they are (`budget` shows the cap)."""
        paths = HomePaths(root)
        archive = RunArchive(paths.archive, create=False)
        store = SessionStore(paths, archive)
        session = SessionData(id=store.pointer() or SessionData().id)
        settings = read_settings(paths.settings_file)
        return cls(paths, {}, settings, session, store, PromptLibrary(paths.prompts), archive)

    def attach_providers(
        self, providers: dict[str, Provider], unavailable: dict[str, str], *, prepare: bool = True
    ) -> None:
        """Take the providers; with `prepare`, the chat's PDF starts uploading at once (the app
        waits for its first frame: prepare_uploads)."""
        self.providers = dict(providers)
        self.unavailable = {**self.config_problems, **unavailable}
        if prepare:
            self.prepare_uploads()

    def prepare_uploads(self) -> None:
        """Start uploading the chat's PDF to every provider (those in `upload_to`), in the
        background (once: a PDF chosen since, with --pdf say, has started its own)."""
        if self.session.pdf_path and Path(self.session.pdf_path) != self.prepared_pdf:
            self._prepare_uploads(Path(self.session.pdf_path))

    @property
    def extra_providers(self) -> tuple[str, ...]:
        """Providers added by configuration files, beyond the built-in three."""
        return tuple(label for label in self.configs if label not in PROVIDERS)

    def participants(self, mode: RunMode) -> tuple[str, ...]:
        """Who answers in `mode`: "All" (and "Auto", which may escalate to it) adds every extra
        provider that joins it."""
        if mode in (Mode.ALL, Mode.AUTO):
            return mode.providers + tuple(p for p in self.extra_providers if self.configs[p].joins_all)
        return mode.providers

    def refusal(self, mode: RunMode) -> str | None:
        """Why `mode` cannot run at all (its model, or a multi mode's aggregator or every
        proposer, is unavailable: the line names the key to set), or None if it can."""
        participants = self.participants(mode)
        wanted = (self.settings.aggregator, *participants) if mode.is_multi else participants
        missing = [name for name in dict.fromkeys(wanted) if name not in self.providers]
        if not missing:
            return None
        proposers_left = [name for name in participants if name not in missing]
        if mode.is_multi and self.settings.aggregator not in missing and proposers_left:
            return None
        return self.unavailable.get(missing[0], f"{missing[0]} is not available")

    def model_for(self, provider: str) -> str:
        return self.settings.model_for(provider, self.configs)

    def select_pdf(self, path: str | Path) -> PdfInfo:
        """Check and remember the session PDF, and start uploading it to every provider."""
        info = pdf_info(path)
        self.session.pdf_path = str(info.path)
        self.session.pdf_removed = False
        self.persist()
        self._prepare_uploads(info.path)
        return info

    def clear_pdf(self) -> None:
        self.session.pdf_path = None
        self.session.pdf_removed = True
        self.persist()

    def persist(self, *, transcript: bool = True) -> None:
        """Save the session as it is now (outside a turn: a new chat, a PDF or a style chosen);
        see session_store. Raises OSError if any of it cannot be written."""
        self.store.save(self.session, transcript=transcript)

    def choose_style(self, style: str) -> None:
        """Keep the style of the next multi-model turn with the chat (raises OSError)."""
        self.session.last_style = style
        self.store.save(self.session, transcript=False)

    def close(self) -> None:
        """Close the archive: SQLite then folds its write-ahead log into History.sqlite3, so
        that file alone holds every chat (a copy of it is complete)."""
        self.archive.close()

    def reopen(self, session_id: str) -> SessionData:
        """Make a past session (from the archive) the current one."""
        try:
            session = self.store.archived(session_id)
        except sqlite3.Error as exc:
            raise EnsembleError(f"Session {session_id} cannot be read from the history ({exc}).") from exc
        if session is None:
            raise EnsembleError(f"Session {session_id} is not in the history any more.")
        self.session = session
        self.persist()
        if session.pdf_path and Path(session.pdf_path).is_file():
            self._prepare_uploads(Path(session.pdf_path))
        return session

    def _prepare_uploads(self, pdf: Path) -> None:
        self.prepared_pdf = pdf
        for label, provider in self.providers.items():
            if self.upload_to is None or label in self.upload_to:
                provider.prepare(pdf)

    def new_chat(self) -> SessionData:
        """Start a fresh session and transcript; the old transcript stays in Chats/."""
        self.session = self.store.new_session(self.session)
        if self.starting_pdf is not None:  # the demo's chats start with its paper
            self.session.pdf_path = str(self.starting_pdf)
            self._prepare_uploads(self.starting_pdf)
        self.persist()
        return self.session

    def update_settings(self, **changes: Any) -> Settings:
        """Validate and apply changes, then rewrite Settings.json (raises ValidationError)."""
        updated = self.settings.model_validate({**self.settings.model_dump(), **changes})
        self.settings = updated
        save_settings(self.paths.settings_file, updated)
        return updated


def read_only(root: Path) -> str | None:
    """One line if the home cannot be written (a read-only file system, or no write permission):
    nothing done in it can be saved. None if it can."""
    try:
        mounted_read_only = bool(os.statvfs(root).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows)
        mounted_read_only = False
    if not mounted_read_only and os.access(root, os.W_OK):
        return None
    why = "a read-only file system" if mounted_read_only else "no write permission"
    return f"The home folder {root} is read-only ({why}): nothing can be saved there - use --home to choose another."
