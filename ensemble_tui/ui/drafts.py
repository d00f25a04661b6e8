"""Keeping the question box on disk as the user types: at most a second behind, never per key."""

from __future__ import annotations

import logging
from collections.abc import Callable

from ensemble_tui.core.store.drafts import Draft, DraftStore

log = logging.getLogger(__name__)

DRAFT_DELAY_S = 0.8  # the longest a keystroke waits to be on disk


class DraftKeeper:
    """Saves the current chat's draft a moment after a change; `flush` saves it at once."""

    def __init__(
        self,
        store: DraftStore,
        set_timer: Callable[[float, Callable[[], None]], object],
        current: Callable[[], tuple[str, Draft]],
    ) -> None:
        """`set_timer`: the app's (Textual's `set_timer`), for the save a moment after a change."""
        self.store = store
        self.set_timer = set_timer
        self.current = current  # the chat on screen and what its draft is now
        self._pending = False
        self._warned = False

    def changed(self) -> None:
        if not self._pending:
            self._pending = True
            self.set_timer(DRAFT_DELAY_S, self._due)

    def _due(self) -> None:
        if self._pending:
            self.flush()

    def flush(self) -> None:
        self._pending = False
        chat_id, draft = self.current()
        try:
            self.store.save(chat_id, draft)
        except OSError as exc:  # the box still holds the text; say it once
            if not self._warned:
                self._warned = True
                log.warning("cannot save the draft of chat %s: %s", chat_id, exc)
