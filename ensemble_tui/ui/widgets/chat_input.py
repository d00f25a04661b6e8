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
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

PLACEHOLDER = "Ask about the paper…  Enter sends · Ctrl+J new line · empty Enter redoes the last reply"
# On a narrow screen the placeholder is cut to what fits on the box's first line.
SHORT_PLACEHOLDER = "Ask about the paper…  Enter sends · Ctrl+J new line"


class ChatInput(TextArea):
    """A TextArea whose Enter submits instead of inserting a newline."""

    BINDINGS = [
        Binding("enter", "submit", "Send", id="chat.send", priority=True, show=False, tooltip="Send the question"),
        # The chat scrolls from the box, which keeps the focus (the box's own paging is rarely needed).
        Binding(
            "pageup",
            "app.scroll_chat('page_up')",
            "Chat up",
            id="chat.page_up",
            priority=True,
            show=False,
            tooltip="Scroll the chat up a page",
        ),
        Binding(
            "pagedown",
            "app.scroll_chat('page_down')",
            "Chat down",
            id="chat.page_down",
            priority=True,
            show=False,
            tooltip="Scroll the chat down a page",
        ),
        Binding(
            "ctrl+home",
            "app.scroll_chat('home')",
            "Chat start",
            id="chat.start",
            priority=True,
            show=False,
            tooltip="Go to the start of the chat",
        ),
        Binding(
            "ctrl+end",
            "app.scroll_chat('end')",
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

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            placeholder=PLACEHOLDER,
        )

    def on_resize(self, event: events.Resize) -> None:
        """The whole placeholder where it fits on one line, else the short one: the box starts
        one line high and a wrapped placeholder would be cut mid-sentence."""
        self.placeholder = PLACEHOLDER if len(PLACEHOLDER) <= self.content_size.width else SHORT_PLACEHOLDER

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """Keep the cursor in view once the box has its new height. The box grows with its text
        (app.tcss) up to a limit; past it, TextArea scrolls to the cursor before the layout has
        counted the new line, so a new last line stayed one row out of view (Textual 8.2)."""
        self.call_after_refresh(self.scroll_cursor_visible)

    def after_typed(self, callback: Callable[..., object], *args: object) -> None:
        """Call `callback(*args)` once the keys typed before now are in the text."""
        self.call_later(callback, *args)

    def action_submit(self) -> None:
        self.after_typed(lambda: self.post_message(self.Submitted(self, self.text)))

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
