"""What the app remembers about the run in flight (plain data, no Textual)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.worker import Worker

from ensemble_tui.core.modes import Mode


@dataclass
class ActiveTurn:
    """One run: its id (to drop late messages from superseded runs), mode and the text sent.

    `text` is what goes back into the input box if the run is cancelled; it is empty for a
    redo or a retry, whose question stays in the chat.
    """

    run_id: int
    mode: Mode
    text: str
    started: float = field(default_factory=time.monotonic)
    worker: Worker[None] | None = None
    outcome: str | None = None  # "final" or "failed" once the engine has said so

    def elapsed(self) -> float:
        return time.monotonic() - self.started
