"""Keeping the question box on disk as the user types: at most a second behind, never per key.

The save a moment after a change runs in a worker thread: it syncs the file to disk (1-15 ms
on a busy machine, longer on a slow disk), and on the app's loop every key typed meanwhile
waited for it (bench row 4.d types during turns, so a save fell among the keys every 0.8 s).
`flush` (a chat switch, a question sent, quitting) still saves at once, on the caller's
thread. Each save is numbered, and one that finds a later save done skips its write, so an
older draft never overwrites a newer one.
"""

from __future__ import annotations

import asyncio
import logging
import threading
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
        self._lock = threading.Lock()  # one write at a time, the newest last
        self._saves = 0  # the number of the latest save asked for

    def changed(self) -> None:
        if not self._pending:
            self._pending = True
            self.set_timer(DRAFT_DELAY_S, self._due)

    def _due(self) -> None:
        if not self._pending:
            return
        self._pending = False
        chat_id, draft = self.current()  # read on the loop, written in a worker thread
        self._saves += 1
        number = self._saves
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (the app is gone): save here
            self._save(chat_id, draft, number)
            return
        loop.run_in_executor(None, self._save, chat_id, draft, number)

    def flush(self) -> None:
        """Save the draft now (waits for a save under way in the worker thread)."""
        self._pending = False
        chat_id, draft = self.current()
        self._saves += 1
        self._save(chat_id, draft, self._saves)

    def _save(self, chat_id: str, draft: Draft, number: int) -> None:
        with self._lock:
            if number != self._saves:  # a later save was asked for: it writes the newer draft
                return
            try:
                self.store.save(chat_id, draft)
            except OSError as exc:  # the box still holds the text; say it once
                if not self._warned:
                    self._warned = True
                    log.warning("cannot save the draft of chat %s: %s", chat_id, exc)
