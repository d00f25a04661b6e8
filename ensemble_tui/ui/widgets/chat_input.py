"""The multi-line question box: Enter sends, Ctrl+J (or Shift+Enter) starts a new line.

Most terminals send the same byte for Enter and Shift+Enter (and tmux drops Alt), so Ctrl+J,
which every terminal delivers as a distinct key (LF), is the documented newline key; Shift+Enter
also works where the terminal reports it (kitty keyboard protocol: kitty, foot, WezTerm, Ghostty).
The bindings are priority bindings because TextArea consumes Enter itself before ordinary
bindings are looked at; both have ids so they can be remapped through the keymap.

Keys are applied in the order they were typed. A priority binding runs in the app's task as the
key arrives, while the keys before it wait in the box's own queue: a burst "line⏎next" put the
new line ahead of "line" (3 bursts in 6 when typed quickly). So whatever edits or reads the text
on a key runs through `after_typed`, in the box's queue behind the keys already sent to it.

Two more places where Textual 8.2 lets a later key overtake (issue 35 §3), worked around here:
- TextArea's own bindings (Backspace, Ctrl+K, the arrows…) are not run by the box: the key
  bubbles up to the app, which runs the binding in its task, after the box has already typed
  the keys behind it (`x BSpace y` gave `abcx`). `on_key` runs them in the box's queue.
- Enter's Submitted message went into the box's queue behind the keys typed after it, so the
  app took "Second race testnext words". Keys after an Enter now wait (`_held`) until the app
  has taken the question, then are applied in order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea


def _edit_keys() -> dict[str, str]:
    """TextArea's own keys and the actions they run (its public BINDINGS)."""
    keys: dict[str, str] = {}
    for binding in TextArea.BINDINGS:
        if isinstance(binding, Binding):
            for key in binding.key.split(","):
                keys[key.strip()] = binding.action
    return keys


EDIT_KEYS: Final = _edit_keys()
ANOTHER_ENTER: Final = None  # in `_held`: an Enter typed while the question before it was being taken

PLACEHOLDER = "Ask about the paper…  Enter sends · Ctrl+J new line · empty Enter redoes the last reply"
# Narrower boxes get the first of these that fits on the box's first line; every one keeps the
# redo hint, since an empty Enter starts a paid run at once (issue 35 #1). 80 columns: the second.
NARROWER_PLACEHOLDERS = (
    "Ask… Enter sends · Ctrl+J new line · empty Enter redoes the last reply",
    "Enter sends · empty Enter redoes the last reply",
    "Empty Enter redoes the last reply",
)


def placeholder_for(width: int) -> str:
    """The longest placeholder that fits `width` cells on one line (the shortest if none does)."""
    return next(
        (text for text in (PLACEHOLDER, *NARROWER_PLACEHOLDERS) if len(text) <= width), NARROWER_PLACEHOLDERS[-1]
    )


class ChatInput(TextArea):
    """A TextArea whose Enter submits instead of inserting a newline."""

    BINDINGS = [
        Binding("enter", "submit", "Send", id="chat.send", priority=True, show=False, tooltip="Send the question"),
        # The chat scrolls from the box, which keeps the focus (the box's own paging is rarely needed).
        Binding(
            "pageup",
            "screen.scroll_chat('page_up')",
            "Chat up",
            id="chat.page_up",
            priority=True,
            show=False,
            tooltip="Scroll the chat up a page",
        ),
        Binding(
            "pagedown",
            "screen.scroll_chat('page_down')",
            "Chat down",
            id="chat.page_down",
            priority=True,
            show=False,
            tooltip="Scroll the chat down a page",
        ),
        Binding(
            "ctrl+home",
            "screen.scroll_chat('home')",
            "Chat start",
            id="chat.start",
            priority=True,
            show=False,
            tooltip="Go to the start of the chat",
        ),
        Binding(
            "ctrl+end",
            "screen.scroll_chat('end')",
            "Chat end",
            id="chat.end",
            priority=True,
            show=False,
            tooltip="Go to the end of the chat",
        ),
        Binding(
            "ctrl+j,shift+enter",
            "newline",
            "New line",
            id="chat.newline",
            priority=True,
            show=False,
            tooltip="Insert a line break",
        ),
    ]

    class Submitted(Message):
        """The user pressed Enter; `text` may be empty (a redo)."""

        def __init__(self, chat_input: ChatInput, text: str) -> None:
            super().__init__()
            self.chat_input = chat_input
            self.text = text

        @property
        def control(self) -> ChatInput:
            return self.chat_input

    class CursorRequested(Message):
        """Up in an empty box: the user wants the cursor on the chat's messages (issue 32 §2)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            placeholder=PLACEHOLDER,
        )
        self._held: list[events.Key | None] | None = None  # keys typed while a question is being taken

    async def on_key(self, event: events.Key) -> None:
        """Apply the key here, in the order typed (see the module's docstring)."""
        if self._held is not None:
            event.prevent_default()
            event.stop()
            self._held.append(events.Key(event.key, event.character))
            return
        if event.key == "up" and not self.text:
            event.prevent_default()
            event.stop()
            self.post_message(self.CursorRequested())
            return
        action = next((EDIT_KEYS[key] for key in (event.key, *event.aliases) if key in EDIT_KEYS), None)
        if action is not None:
            event.prevent_default()
            event.stop()
            await self.run_action(action)

    def on_resize(self, event: events.Resize) -> None:
        """The whole placeholder where it fits on one line, else a shorter one: the box starts
        one line high and a wrapped placeholder would be cut mid-sentence."""
        self.placeholder = placeholder_for(self.content_size.width)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """Keep the cursor in view once the box has its new height. The box grows with its text
        (app.tcss) up to a limit; past it, TextArea scrolls to the cursor before the layout has
        counted the new line, so a new last line stayed one row out of view (Textual 8.2)."""
        self.call_after_refresh(self.scroll_cursor_visible)

    def after_typed(self, callback: Callable[..., object], *args: object) -> None:
        """Call `callback(*args)` once the keys typed before now are in the text."""
        self.call_later(callback, *args)

    def action_submit(self) -> None:
        self.after_typed(self._send)

    def _send(self) -> None:
        """Hand the question to the main screen; the keys typed after it wait until it is taken."""
        if self._held is not None:
            self._held.append(ANOTHER_ENTER)
            return
        self._held = []
        self.screen.post_message(self.Submitted(self, self.text))
        self.screen.call_later(self._release)  # in the screen's queue, behind the Submitted

    async def _release(self) -> None:
        """Apply the keys held since Enter, in order; keys arriving meanwhile join the queue."""
        held = self._held or []
        while held:
            key = held.pop(0)
            if key is ANOTHER_ENTER:
                self.screen.post_message(self.Submitted(self, self.text))
                self.screen.call_later(self._release)
                return
            await self._apply(key)
        self._held = None

    async def _apply(self, key: events.Key) -> None:
        action = next((EDIT_KEYS[name] for name in (key.key, *key.aliases) if name in EDIT_KEYS), None)
        if action is not None:
            await self.run_action(action)
        elif key.is_printable and key.character is not None:
            start, end = self.selection
            self.replace(key.character, start, end, maintain_selection_offset=False)
        else:  # a key of the app's (Ctrl+O…): it goes its usual way, now
            self.post_message(key)

    def action_newline(self) -> None:
        self.after_typed(self._insert_newline)

    def _insert_newline(self) -> None:
        start, end = self.selection
        self.replace("\n", start, end, maintain_selection_offset=False)

    def take_text(self) -> str:
        """Empty the box and return what it held."""
        text = self.text
        self.clear()
        return text

    def restore(self, text: str) -> None:
        """Put back the text of a cancelled run, ahead of anything typed since."""
        if not text.strip():
            return
        current = self.text
        self.load_text(text if not current.strip() else f"{text}\n\n{current}")
        self.move_cursor(self.document.end)
