"""Keys reach the widget that has the focus after the keys before them, however fast they come.

Textual 8.2 routes each key as it arrives: the app hands it to the widget focused at that
moment, in that widget's own queue. A key that moves the focus does so only later: an app or
screen binding (Ctrl+O, `r` in History…) runs once the key has bubbled up from the focused
widget, a pushed screen composes and takes the focus in its own task, and `Widget.focus()` is
itself a callback queued in the app. Meanwhile the keys behind it were already handed to the
old focus. So `Ctrl+O /tmp/paper.pdf` in one read (a paste, a script, a fast typist) typed the
path into the question box behind the picker, or dropped it, or lost characters from its middle
(issue 35 §3; upstream, the same family as Textualize/textual#6605, where a widget's own bound
keys overtake typing; its PR #6631 says keys bound on ancestors can still reorder).

The work-around, through the public API: a key that may move the focus closes a gate, and the
keys after it wait in the app until the key has gone its whole way (a callback queued behind
it in the focused widget, then in each ancestor up to the app, where its binding runs, then
one more behind the `focus()` calls the binding queued) and, if it changed the screen, the new
screen has composed and refreshed (its own `focus()` calls run). They are then routed in
order, each closing the gate again if it may move the focus. Typing into a text box never
closes it: a printable key there is text, and the box's queue keeps its order.
"""

from __future__ import annotations

from collections import deque
from functools import partial
from typing import Final

from textual import events
from textual.app import App
from textual.dom import DOMNode
from textual.widgets import Input, TextArea

MAX_ROUNDS: Final = 8  # screens pushed or popped in a row by one key, waited for before giving up
GIVE_UP_AFTER: Final = 3.0  # seconds: never hold keys longer, whatever went wrong on the way


def types_text(app: App[object], event: events.Key) -> bool:
    """The key is text for a focused text box: it stays where the keys before it went."""
    return event.is_printable and isinstance(app.focused, (Input, TextArea))


class KeysInOrder(App[int]):
    """An App whose keys are applied in the order they arrive (see the module's docstring)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._waiting_keys: deque[events.Key] = deque()
        self._key_in_transit: events.Key | None = None
        self._settle_round = 0
        self._screen_before: object = None  # the screen when the key in transit was routed

    @property
    def keys_pending(self) -> bool:
        """Whether a key is still on its way (one that may move the focus, and any held behind it)."""
        return self._key_in_transit is not None or bool(self._waiting_keys)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if self._key_in_transit is not None or self._waiting_keys:
                self._waiting_keys.append(event)
                return
            await self._route_key(event)
            return
        await super().on_event(event)

    async def _route_key(self, event: events.Key) -> None:
        """Hand the key on as Textual does; if it may move the focus, hold the next keys."""
        target: DOMNode = self.focused or self.screen
        self._screen_before = self.screen
        await super().on_event(event)
        if types_text(self, event) and self.focused is target:
            return
        self._key_in_transit = event
        self._settle_round = 0
        self.set_timer(GIVE_UP_AFTER, partial(self._release, event))
        if not target.call_later(self._climb, target, event):
            self.call_later(self._observe, event)

    def _climb(self, node: DOMNode, event: events.Key) -> None:
        """Called in `node`'s queue once it has handled the key (and passed it on to its parent,
        if it bubbles): follow the key up to the app, where its binding runs."""
        if event is not self._key_in_transit:
            return
        parent = node.parent if node is not self else None
        if parent is None or not parent.call_later(self._climb, parent, event):
            self.call_later(self._observe, event)  # at the app (or the way up is gone)

    async def _observe(self, event: events.Key) -> None:
        """At the app, behind the `focus()` calls the key's binding queued: release the held
        keys, unless the key changed the screen; then first let the new screen compose and
        refresh (its `focus()` calls queued in turn), as many times as it keeps changing."""
        if event is not self._key_in_transit:
            return
        if self.screen is not self._screen_before and self._settle_round < MAX_ROUNDS:
            self._screen_before = self.screen
            self._settle_round += 1
            self.call_after_refresh(self.call_later, self._observe, event)
            return
        await self._release(event)

    async def _release(self, event: events.Key) -> None:
        """Route the held keys in order, until one of them may move the focus in its turn."""
        if event is not self._key_in_transit:
            return
        self._key_in_transit = None
        while self._waiting_keys and self._key_in_transit is None:
            await self._route_key(self._waiting_keys.popleft())
