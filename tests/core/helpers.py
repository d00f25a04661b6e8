"""Small helpers for driving the engine in tests."""

from __future__ import annotations

from ensemble_tui.core.engine import Engine
from ensemble_tui.core.events import EngineEvent
from ensemble_tui.core.modes import Mode


async def run_turn(engine: Engine, mode: Mode, text: str) -> list[EngineEvent]:
    return [event async for event in engine.run(mode, text)]


def of_type(events: list[EngineEvent], kind: type) -> list:
    return [event for event in events if isinstance(event, kind)]
