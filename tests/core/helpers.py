"""Small helpers for driving the engine in tests."""

from __future__ import annotations

from pathlib import Path

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.chat.session import SessionData
from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.store.home import HomePaths
from ensemble_tui.core.store.session_store import SessionStore
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import EngineEvent


async def run_turn(engine: Engine, mode: Mode, text: str) -> list[EngineEvent]:
    return [event async for event in engine.run(mode, text)]


def of_type(events: list[EngineEvent], kind: type) -> list:
    return [event for event in events if isinstance(event, kind)]


def restored_session(home: Path, archive: Path | None = None) -> SessionData:
    """The session as the next start restores it (Session.json and the archive, or `archive` in
    place of the home's own), read without changing anything in `home`."""
    store = SessionStore(HomePaths(home), RunArchive(archive or HomePaths(home).archive))
    try:
        session, warning = store.load()
    finally:
        store.archive.close()
    assert warning is None, warning
    return session
