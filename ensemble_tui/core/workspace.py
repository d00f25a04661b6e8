"""Everything one running app holds: home paths, configurations, settings, session, providers.

The Textual app and the `ask` command both open a Workspace and drive its Engine; this is the
single place where files are read at start and state changes are persisted.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ensemble_tui.core.archive import RunArchive
from ensemble_tui.core.atomic import remove_stale_temporaries
from ensemble_tui.core.config import PROVIDERS, ProviderConfig, load_provider_configs
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.home import HomePaths, seed_home
from ensemble_tui.core.modes import Mode, RunMode
from ensemble_tui.core.pdf import PdfInfo, pdf_info
from ensemble_tui.core.prompts import PromptLibrary
from ensemble_tui.core.provider import Provider
from ensemble_tui.core.runlog import TurnRecord, append_turn
from ensemble_tui.core.session import SessionData, SessionSnapshot, SessionStore, frozen_copy
from ensemble_tui.core.settings import Settings, load_settings, save_settings

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
    config_problems: dict[str, str] = field(default_factory=dict)
    _write_lock: threading.Lock = field(
        default_factory=threading.Lock, repr=False, compare=False
    )  # provider -> why its file is unusable

    @classmethod
    def open(cls, root: Path, *, stale_after_s: float = 600.0) -> Workspace:
        """Seed and read the home folder, restore the last session; raise EnsembleError if the
        folder is unusable. Temporary files left by an earlier crash are cleared."""
        paths = seed_home(root)
        remove_stale_temporaries(paths.root, stale_after_s)
        found = load_provider_configs(paths.configurations)
        configs = found.configs
        loaded = load_settings(paths.settings_file, configs)
        store = SessionStore(paths)
        session, session_warning = store.load()
        warnings = [w for w in (loaded.warning, session_warning) if w] + list(found.problems.values())
        archive = RunArchive(paths.archive)
        workspace = cls(paths, configs, loaded.settings, session, store, PromptLibrary(paths.prompts), archive)
        workspace.warnings.extend(warnings)
        workspace.config_problems = dict(found.problems)
        for provider, config in configs.items():
            model = loaded.settings.model_for(provider, configs)
            spec = config.model(model)
            if spec is None:
                workspace.warnings.append(
                    f"{provider}: model {model} is not in {provider} configuration; costs are estimated cautiously."
                )
            elif spec.retired:
                workspace.warnings.append(
                    f"{provider}: model {model} was retired ({spec.retired}) - pick another in Settings."
                )
        return workspace

    def attach_providers(self, providers: dict[str, Provider], unavailable: dict[str, str]) -> None:
        self.providers = dict(providers)
        self.unavailable = {**self.config_problems, **unavailable}
        if self.session.pdf_path:
            self._prepare_uploads(Path(self.session.pdf_path))

    @property
    def extra_providers(self) -> tuple[str, ...]:
        """Providers added by configuration files, beyond the built-in three."""
        return tuple(label for label in self.configs if label not in PROVIDERS)

    def participants(self, mode: RunMode) -> tuple[str, ...]:
        """Who answers in `mode`: "All" adds every extra provider that joins it."""
        if mode is Mode.ALL:
            return mode.providers + tuple(p for p in self.extra_providers if self.configs[p].joins_all)
        return mode.providers

    def model_for(self, provider: str) -> str:
        return self.settings.model_for(provider, self.configs)

    def select_pdf(self, path: str | Path) -> PdfInfo:
        """Check and remember the session PDF, and start uploading it to every provider."""
        info = pdf_info(path)
        self.session.pdf_path = str(info.path)
        self.persist()
        self._prepare_uploads(info.path)
        return info

    def clear_pdf(self) -> None:
        self.session.pdf_path = None
        self.persist()

    def persist(self) -> None:
        """Save the session (Session.json, transcript) and its copy in the run archive, now.

        Raises OSError if the files cannot be written; an archive that cannot be written
        only costs the history screen, so that is logged, not raised.
        """
        self._write(self.store.snapshot(self.session))

    async def persist_in_background(self) -> None:
        """The same, with the rendering and the writing (megabytes in a long chat, with fsync)
        done in a worker thread so the app's loop keeps drawing. Only a copy of the session is
        made here, on the loop, with its place in the order of saves."""
        copy, seq = frozen_copy(self.session), self.store.next_seq()
        await asyncio.to_thread(lambda: self._write(self.store.snapshot(copy, seq)))

    def _write(self, snapshot: SessionSnapshot) -> None:
        with self._write_lock:  # files and archive move on together, in snapshot order
            if not self.store.write(snapshot):
                return  # a newer save got there first
            try:
                self.archive.save_session(snapshot)
            except sqlite3.Error as exc:
                log.warning("cannot update the run archive: %s", exc)

    def record_turn(self, record: TurnRecord) -> None:
        """Timings and costs to `Logs/`, the full record to the archive; neither may end a turn."""
        record.session_cost_usd = self.session.cost_usd
        try:
            append_turn(self.paths.logs, record)
        except OSError as exc:
            log.warning("cannot write the turn log: %s", exc)
        try:
            self.archive.save_turn(record)
        except sqlite3.Error as exc:
            log.warning("cannot write the run archive: %s", exc)

    def reopen(self, session_id: str) -> SessionData:
        """Make a past session (from the archive) the current one."""
        session = self.archive.load_session(session_id)
        if session is None:
            raise EnsembleError(f"Session {session_id} is not in the history any more.")
        self.session = session
        self.persist()
        if session.pdf_path and Path(session.pdf_path).is_file():
            self._prepare_uploads(Path(session.pdf_path))
        return session

    def _prepare_uploads(self, pdf: Path) -> None:
        for provider in self.providers.values():
            provider.prepare(pdf)

    def new_chat(self) -> SessionData:
        """Start a fresh session and transcript; the old transcript stays in Chats/."""
        self.session = self.store.new_session(self.session)
        self.persist()
        return self.session

    def update_settings(self, **changes: Any) -> Settings:
        """Validate and apply changes, then rewrite Settings.json (raises ValidationError)."""
        updated = self.settings.model_validate({**self.settings.model_dump(), **changes})
        self.settings = updated
        save_settings(self.paths.settings_file, updated)
        return updated
