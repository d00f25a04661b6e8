"""The chat log: user inputs and final replies, newest at the bottom, rendered cheaply.

Each message is one `Static` holding a Rich Markdown renderable (about 20x cheaper to mount
than a `textual.widgets.Markdown`: 200 replies took over a minute to mount as Markdown widgets;
bench row 2.a compares the two). Only the newest `BATCH` messages are mounted when a chat
opens; older ones are mounted a batch at a time on request, so opening a 200-turn
chat costs the same as opening a 20-turn one. Notices (errors, the budget stop, warnings) are
lines between messages that belong to this run of the app only; they are not in the history.

The log is anchored to its end (Textual's `anchor()`), so the frame that first lays out a new
message already shows it; scrolling to the end after a refresh instead missed one new reply in
three (the refresh came before the mount had finished) and cost a second layout pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Static

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.core.chat.session import ChatMessage, unchanged_prefix
from ensemble_tui.core.text.markdown_blocks import keep_line_breaks
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.ui.chat_log.quote_marks import marked, quotation_clicked, with_marks
from ensemble_tui.ui.chat_log.rendering import RenderedOnce, markdown, plain
from ensemble_tui.ui.chat_log.vote_view import vote_table

BATCH = 20
# Opening a chat mounts the newest messages up to about this much text (a few screens), at
# least MIN_SHOWN of them: rendering cost follows the text, not the number of messages.
OPENING_CHARS = 6_000
MIN_SHOWN = 4
NoticeKind = Literal["error", "warning", "info"]
_NOTICE_MARK: dict[NoticeKind, str] = {"error": "✖ ", "warning": "⚠ ", "info": "• "}


def claims_line(summary: str, map_key: str) -> str:
    """The line under a reply: its map's summary and the key that opens the map, as the action
    table (with Keymap.json) has it, so a remapped key is the one named (issue 35 polish)."""
    return f"{summary} · {map_key} opens the map" if map_key else summary


def message_renderable(message: ChatMessage, claims: str | None = None) -> RenderableType:
    """A message as shown: Markdown, then its sources as plain lines (never as live links), then
    for a reply who wrote it, in one dim line, the summary of its claim map (`claims`) under it,
    and the tally of its vote.

    Rendered once per width (RenderedOnce), not once to measure and again to draw: this is in
    the frame that first shows a new reply. Plain text (a message too long for Markdown) is
    left as Text, which Textual renders cheaply itself.
    """
    shown, summary = marked(message.text, message.checks)
    body = with_marks(markdown(keep_line_breaks(shown) if message.role == "user" else shown), message.checks)
    extras: list[RenderableType] = [summary] if summary is not None else []
    if message.sources:
        sources = Text("Sources:", style="bold")  # ends with a newline: Textual counts them for height
        for number, url in enumerate(message.sources, start=1):
            sources.append(f"\n {number}. ")
            sources.append_text(plain(url))
        extras.append(sources)
    if (failed := failure_line(message)) is not None:
        extras.append(failed)
    provenance = message.provenance
    claims_line = claims or ""
    if provenance is not None:
        line = strip_control(provenance.line) + (f"\n{claims_line}" if claims_line else "")
        extras.append(Text(line, style="dim"))  # ends with a newline, as Sources
        if provenance.tally and provenance.style:
            extras.append(vote_table(Style.parse(provenance.style), provenance.tally))
    elif claims_line:
        extras.append(Text(claims_line, style="dim"))
    if not extras:
        return body if isinstance(body, Text) else RenderedOnce(body)
    if isinstance(body, Text) and all(isinstance(extra, Text) for extra in extras):
        combined = body.copy()  # plain text stays Text, which Textual renders cheaply itself
        for extra in extras:
            combined.append("\n\n")
            combined.append_text(extra)  # type: ignore[arg-type]
        return combined
    parts: list[RenderableType] = [body]
    for extra in extras:
        parts += [Text(""), extra]
    return RenderedOnce(Group(*parts))


def failure_line(message: ChatMessage) -> Text | None:
    """Why an input's turn failed, as the error line under it said when it failed (a chat
    reopened after a restart shows it again); None for anything else."""
    if message.role != "user" or not message.failure:
        return None
    return Text.assemble(notice_line(message.failure, "error"), style="red")  # ends with a newline, as Sources


def opening_start(items: Sequence[Any]) -> int:
    """Index of the first item to mount when a log opens: the newest items, bounded by count and
    by the amount of text, so a chat of long replies opens as fast as one of short ones."""
    start, chars = len(items), 0
    while start > 0 and len(items) - start < BATCH:
        chars += len(getattr(items[start - 1], "text", ""))
        if chars > OPENING_CHARS and len(items) - start >= MIN_SHOWN:
            break
        start -= 1
    return start


class LogEntry(Static):
    """One item of a MessageLog; `item` is what it shows (compared when the log is synced)."""

    def __init__(self, item: Any, renderable: RenderableType, classes: str) -> None:
        super().__init__(renderable, classes=classes)
        self.item = item


class ChatEntry(LogEntry):
    """One user input or final reply; a click on a code block of a reply copies that block."""

    class CodeBlockClicked(Message):
        def __init__(self, message: ChatMessage, index: int) -> None:
            super().__init__()
            self.message = message
            self.index = index

    def __init__(self, message: ChatMessage, claims: str | None = None) -> None:
        super().__init__(message, message_renderable(message, claims), f"chat-entry -{message.role}")
        self.message = message

    def show_claims(self, claims: str) -> None:
        """Add the claim map's summary line under a reply already shown."""
        self.update(message_renderable(self.message, claims))

    def on_click(self, event: events.Click) -> None:
        if (quotation := quotation_clicked(event.style.meta, self.message.checks)) is not None:
            event.stop()  # a quote mark: the paper view at its passage
            from ensemble_tui.ui.screens.paper import open_passage

            open_passage(self.app, quotation)
            return
        if self.message.role != "assistant" or "```" not in self.message.text and "~~~" not in self.message.text:
            return
        index = self.code_block_at(event.y)
        if index is not None:
            event.stop()
            self.post_message(self.CodeBlockClicked(self.message, index))

    def code_block_at(self, y: int) -> int | None:
        """The code block drawn on line `y` of this entry (rendered at its width), if any."""
        from ensemble_tui.core.text.code_blocks import fenced_blocks

        console = self.app.console
        options = console.options.update_width(max(1, self.content_region.width))
        lines = ["".join(s.text for s in line).strip() for line in console.render_lines(self.content, options)]
        start = 0
        for index, block in enumerate(fenced_blocks(self.message.text)):
            code = [line.strip() for line in block.code.splitlines()] or [""]
            first = next((n for n in range(start, len(lines)) if code[0] and code[0] in lines[n]), None)
            if first is None:
                continue
            last = first + len(code) - 1
            if first - 1 <= y <= last + 1:  # the block's padding lines count too
                return index
            start = last + 1
        return None


def notice_line(text: str, kind: NoticeKind) -> Text:
    line = Text(_NOTICE_MARK[kind], end="")
    line.append_text(plain(text))
    return line


class ChatNotice(Static):
    """One concise line about the run (error, budget stop, skipped proposer, warning)."""

    def __init__(self, text: str, kind: NoticeKind = "info") -> None:
        super().__init__(notice_line(text, kind), classes=f"chat-notice -{kind}")
        self.kind = kind

    def set_text(self, text: str, kind: NoticeKind) -> None:
        """Rewrite the line in place (a line that fills in as a run goes, e.g. reviews)."""
        self.update(notice_line(text, kind))
        self.remove_class(f"-{self.kind}")
        self.add_class(f"-{kind}")
        self.kind = kind


class VoteNotice(Static):
    """The tally of a council, vote or debate, as a small table between the messages."""

    def __init__(self, table: RenderableType) -> None:
        super().__init__(table, classes="chat-notice -vote")


class EarlierButton(Button):
    """Mounts the next batch of older messages above the ones shown."""


class MessageLog(VerticalScroll):
    """A scrolling list mirroring a list of items (chat messages, resubmissions) that only
    changes at its end; entries are mounted lazily from the end.

    A log in a lazily mounted pane (Resubmissions) may be given its items before it is
    mounted: it keeps them and mounts their entries when it is mounted itself.

    The entries live in one body container at least as tall as the log. The log is anchored
    (see `_scroll_to_newest`), and Textual anchors by aligning the bottom of the content with
    the bottom of the view, which would push a short log down to the bottom; a body that fills
    the view keeps a short log at the top, as it always was, and changes nothing once it
    overflows.
    """

    DEFAULT_CSS = """
    MessageLog > .message-log-body {
        height: auto;
        min-height: 100%;
    }
    """

    # The message cursor's keys, on while it is on a message (check_action): priority, so the
    # chat pane's "typing goes to the question box" does not take the letters first.
    BINDINGS = [
        Binding("up", "move_cursor(-1)", "Previous", priority=True, show=False, id="cursor.up"),
        Binding("down", "move_cursor(1)", "Next", priority=True, show=False, id="cursor.down"),
        Binding("e", "cursor_action('edit')", "Edit & resend", priority=True, id="cursor.edit"),
        Binding("f", "cursor_action('fork')", "Fork here", priority=True, id="cursor.fork"),
        Binding("c", "cursor_action('copy')", "Copy", priority=True, id="cursor.copy"),
        Binding("o", "cursor_action('passage')", "Passage", priority=True, id="cursor.passage"),
        Binding("escape", "leave_cursor", "Leave", priority=True, id="cursor.leave"),
    ]

    class CursorAction(Message):
        """An action asked on the message under the cursor: "edit", "fork", "copy" or "passage"."""

        def __init__(self, action: str, index: int, message: Any) -> None:
            super().__init__()
            self.action = action
            self.index = index  # the message's place in the log's items
            self.message = message

    class CursorLeft(Message):
        """The cursor was taken off the messages (Esc): the question box takes the keys again."""

    def __init__(
        self,
        entry_factory: Callable[[Any], LogEntry] | None = None,
        *,
        empty_hint: str = "",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id, classes="message-log")
        self._entry_factory = entry_factory or self._chat_entry
        # A reply's text -> its claim map's summary line (the map is never part of the session).
        self.claim_lines: dict[str, str] = {}
        self.map_key = ""  # the key that opens the claim map, named under each summary (set by the app)
        self._messages: list[Any] = []
        self._entries: list[LogEntry] = []
        self._first_shown = 0
        self.empty_hint = empty_hint  # shown while there is no message (the app sets it as the keymap names keys)
        self._can_mount = False  # set on mount: before that, show() and sync() only keep the items
        self._pending: list[Any] | None = None  # items given before mount
        self._body = Vertical(classes="message-log-body")
        self._cursor: int | None = None  # the index in `_messages` of the message under the cursor
        # `reveal_start`'s second half: waiting for the log's first layout, and the last ones run.
        self._opening_reveal: tuple[LogEntry, LogEntry, int | None, bool] | None = None
        self._revealed: list[tuple[LogEntry, LogEntry, int | None, bool]] = []

    def compose(self) -> ComposeResult:
        yield self._body

    @property
    def hidden_count(self) -> int:
        """Older messages not mounted yet."""
        return self._first_shown

    @property
    def entries(self) -> list[LogEntry]:
        return list(self._entries)

    @property
    def items(self) -> list[Any]:
        """The items shown (or to be shown once mounted), oldest first; a copy."""
        return list(self._pending if self._pending is not None else self._messages)

    def on_mount(self) -> None:
        if not self._body.is_attached:
            return  # mounted as the app quits: the body was never mounted
        self._can_mount = True
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self.show(pending)

    def show(self, history: Sequence[Any]) -> None:
        """Replace everything (a new chat, or the session at start) with `history`."""
        if not self._can_mount:
            self._pending = list(history)
            return
        self._body.remove_children()
        self._cursor = None
        self._messages = list(history)
        self._first_shown = opening_start(self._messages)
        self._entries = [self._entry_factory(message) for message in self._messages[self._first_shown :]]
        widgets: list[Static | Button] = []
        if self._first_shown:
            widgets.append(self._earlier_button())
        elif not self._entries and self.empty_hint:
            widgets.append(Static(plain(self.empty_hint), classes="empty-hint"))
        self._body.mount_all([*widgets, *self._entries])
        self._scroll_to_newest()
        if self._entries and getattr(self._entries[-1].item, "role", "") == "assistant":
            # A chat reopens at its last reply's start, unless a notice (a start-up warning)
            # comes after it: that is news, and the log's end shows it.
            self.reveal_start(self._entries[-1].item, unless_followed=True)

    def sync(self, history: Sequence[Any]) -> None:
        """Bring the shown messages in line with `history`, which only ever changes at its end.

        Messages after the first difference are removed and the rest mounted; notices stay.
        """
        if not self._can_mount:
            self._pending = list(history)
            return
        common = unchanged_prefix(self._messages, history)
        if common < self._first_shown:
            self.show(history)
            return
        keep = common - self._first_shown
        stale, self._entries = self._entries[keep:], self._entries[:keep]
        for entry in stale:
            entry.remove()
        self._messages = list(history)
        if self._cursor is not None and self._cursor >= common:
            self.action_leave_cursor()  # its message went or changed: the box takes the keys again
        fresh = [self._entry_factory(message) for message in self._messages[common:]]
        if fresh:
            self.query(".empty-hint").remove()
            self._entries.extend(fresh)
            self._body.mount_all(fresh)
            # Now, not once the mount is done (Textual's own request): a layout another widget
            # asks for meanwhile would use the body's old height and leave the new entries unseen.
            self._body.refresh(layout=True)
            self._scroll_to_newest()

    def _chat_entry(self, message: ChatMessage) -> ChatEntry:
        summary = self.claim_lines.get(message.text) if message.role == "assistant" else None
        return ChatEntry(message, claims_line(summary, self.map_key) if summary else None)

    def set_claim_lines(self, lines: dict[str, str]) -> None:
        """Give replies (by their text) their claim map's summary line, shown now if mounted."""
        self.claim_lines.update(lines)
        for entry in self._entries:
            if isinstance(entry, ChatEntry) and entry.message.role == "assistant" and entry.message.text in lines:
                entry.show_claims(claims_line(lines[entry.message.text], self.map_key))

    def add_notice(self, text: str, kind: NoticeKind = "info", *, late: bool = False) -> ChatNotice:
        notice = ChatNotice(text, kind)
        self.add_widget(notice, late=late)
        return notice

    def add_widget(self, widget: Static, *, late: bool = False) -> None:
        """Mount a notice-like widget after everything shown (it stays when the log is synced).

        `late`: it comes after the turn's reply was shown (how its claim map ended): it never
        moves the view unless the user is already at the end, so a long reply shown from its
        start stays where the user reads it."""
        self.query(".empty-hint").remove()
        self._body.mount(widget)
        if not late or self.is_vertical_scroll_end:
            self._scroll_to_newest()

    def load_earlier(self) -> int:
        """Mount up to BATCH older messages above those shown; returns how many."""
        if not self._first_shown:
            return 0
        self.release_anchor()  # or the compositor would pull the view back to the end
        start = max(0, self._first_shown - BATCH)
        older = [self._entry_factory(message) for message in self._messages[start : self._first_shown]]
        self._first_shown = start
        # Keep the view where it was: the first entry shown so far stays at the same place on
        # screen, however much was mounted above it.
        first, old_y = (self._entries[0] if self._entries else None), self.scroll_y
        first_y = first.virtual_region.y if first is not None else 0
        self.query(EarlierButton).remove()
        self._body.mount_all(older, before=0)
        self._entries[:0] = older
        if self._first_shown:
            self._body.mount(self._earlier_button(), before=0)

        def keep_place() -> None:
            moved = first.virtual_region.y - first_y if first is not None else 0
            self.scroll_to(y=old_y + moved, animate=False)

        self.call_after_refresh(keep_place)
        return len(older)

    def _earlier_button(self) -> EarlierButton:
        count = min(BATCH, self._first_shown)
        return EarlierButton(
            f"▲ Show {count} earlier messages ({self._first_shown} not shown)", classes="earlier", compact=True
        )

    def item_in_view(self) -> Any | None:
        """The item being read: the last entry whose top is above the middle of the view (the
        one last scrolled to), else the first shown."""
        middle = self.scroll_y + self.scrollable_content_region.height // 2
        shown = [entry for entry in self._entries if entry.virtual_region.y <= middle]
        entry = shown[-1] if shown else (self._entries[0] if self._entries else None)
        return entry.item if entry is not None else None

    # ----- the message cursor (issue 32 §2): one message chosen from the keyboard ----------------

    @property
    def cursor(self) -> int | None:
        """The index (in `items`) of the message under the cursor; None when it is off."""
        return self._cursor

    def start_cursor(self) -> bool:
        """Put the cursor on the last message and take the keys; False if there is none."""
        if not self._messages or not self._can_mount:
            return False
        self._place_cursor(len(self._messages) - 1)
        self.focus()
        return True

    def action_move_cursor(self, step: int) -> None:
        if self._cursor is None:
            return
        target = min(max(self._cursor + step, 0), len(self._messages) - 1)
        if target < self._first_shown:
            self.load_earlier()
        self._place_cursor(target)

    def action_cursor_action(self, action: str) -> None:
        if self._cursor is not None:
            self.post_message(self.CursorAction(action, self._cursor, self._messages[self._cursor]))

    def action_leave_cursor(self) -> None:
        self.leave_cursor()
        self.post_message(self.CursorLeft())

    def leave_cursor(self) -> None:
        """Take the cursor off the messages (nothing happens if it is off)."""
        if self._cursor is not None:
            self._entries_at(self._cursor, lambda entry: entry.remove_class("-cursor"))
        self._cursor = None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The cursor's keys act only while it is on a message: else Up and Down scroll."""
        if action in ("move_cursor", "cursor_action", "leave_cursor"):
            return self._cursor is not None
        return True

    def _place_cursor(self, index: int) -> None:
        if self._cursor is not None:
            self._entries_at(self._cursor, lambda entry: entry.remove_class("-cursor"))
        self._cursor = index
        self._entries_at(index, lambda entry: entry.add_class("-cursor"))
        entry = self._entry_for(index)
        if entry is not None:
            self.release_anchor()
            self.call_after_refresh(self.scroll_to_widget, entry, animate=False, top=entry.outer_size.height > 4)
        self.refresh_bindings()

    def _entry_for(self, index: int) -> LogEntry | None:
        offset = index - self._first_shown
        return self._entries[offset] if 0 <= offset < len(self._entries) else None

    def _entries_at(self, index: int, change: Callable[[LogEntry], object]) -> None:
        entry = self._entry_for(index)
        if entry is not None:
            change(entry)

    def _scroll_to_newest(self) -> None:
        """Bring the newest entry into view, in the frame that first lays it out.

        Anchoring makes the compositor scroll the log to its end while it arranges the new
        entries, however long their mount takes; calling it again re-anchors a log the user had
        scrolled up in, so a new message always comes into view. A log in a hidden pane stays
        anchored and is laid out at its end when it is shown.
        """
        self.anchor()

    def reveal_start(self, item: Any, unless_followed: bool = False) -> None:
        """Show `item` (a reply) from its start, with the entry just before it (its question)
        at the top: the user reads down from there. A pair that fits the view stays shown whole
        at the end, as the log's anchor keeps it.

        The anchored log would draw a tall reply's end in the frame that first lays it out.
        Until that frame, the reply is capped (a max-height) at the rows the view has below its
        question, so that frame, anchored, shows the question at the top and the reply's first
        lines under it; after the frame (`call_after_refresh`) the cap goes and the anchor is
        released at that same scroll, so the next layout draws the same lines and the rest of
        the reply below them. Before the log's first layout (a chat opened at start) the view's
        height is not known: the reply is capped at one row, and the view moves to the question
        after the first frame. `unless_followed`: leave the view at the end if anything was
        mounted after the reply by then.
        """
        index = next((i for i, entry in enumerate(self._entries) if entry.item is item), None)
        if index is None:
            return
        reply = self._entries[index]
        before = self._entries[index - 1] if index else None
        top = before if before is not None and getattr(before.item, "role", "") == "user" else reply
        cap: int | None = None
        if not reply.outer_size.height:
            above = 0
            if top is not reply:
                margin = top.styles.margin
                above = margin.top + self._height(top) + max(margin.bottom, reply.styles.margin.top)
            cap = max(1, self.scrollable_content_region.height - above - reply.styles.margin.bottom)
            reply.styles.max_height = cap
        reveal = (reply, top, cap, unless_followed)
        if not self.scrollable_content_region.height:  # the log's first layout is still to come
            self._opening_reveal = reveal
        self.call_after_refresh(self._reveal_once, reveal)

    def on_resize(self, event: events.Resize) -> None:
        """The log's first layout (a chat opened at start) has placed the reply: reveal its start
        now. Textual runs a callback queued with `call_after_refresh` only after the frames of the
        terminal's first Resize events (three at start, each a layout of the screen), so the
        frame that showed the reply's start came five to seven frames after the first one, once
        start-up was over (bench rows 2.a and 2.c timed the work started after it)."""
        reveal, self._opening_reveal = self._opening_reveal, None
        if reveal is not None and event.size.height:
            self._reveal_once(reveal)

    def _reveal_once(self, reveal: tuple[LogEntry, LogEntry, int | None, bool]) -> None:
        """The second half of `reveal_start`, by whichever comes first (`on_resize`, a refresh)."""
        if self._opening_reveal is reveal:
            self._opening_reveal = None
        elif reveal in self._revealed:
            return
        self._revealed.append(reveal)
        del self._revealed[:-2]
        self._after_reveal_frame(*reveal)

    def _height(self, entry: LogEntry) -> int:
        """`entry`'s height without margins: as laid out, else as its layout will find it (0 if
        the log has no width yet)."""
        if entry.outer_size.height:
            return entry.outer_size.height
        styles, width = entry.styles, self._body.size.width
        width -= styles.gutter.width + styles.margin.width
        if width <= 0:
            return 0
        return entry.get_content_height(self._body.size, self.screen.size, width) + styles.gutter.height

    def _after_reveal_frame(
        self, reply: LogEntry, top: LogEntry, cap: int | None, unless_followed: bool, refreshes_left: int = 5
    ) -> None:
        """The second half of `reveal_start`, once a frame has laid the reply out (a log in a
        hidden pane is not: it waits a few refreshes, then shows the reply whole at the end)."""
        if not reply.is_attached:
            return
        if not self._start_in_view(reply) and refreshes_left:
            self.call_after_refresh(self._after_reveal_frame, reply, top, cap, unless_followed, refreshes_left - 1)
            return
        if cap is not None:
            reply.styles.max_height = None  # clearing a rule does not lay the widget out again by itself
            reply.refresh(layout=True)
        if unless_followed and self._body.children[-1] is not reply:
            return
        taller = cap is not None and reply.outer_size.height >= cap
        pair = reply.virtual_region.bottom - top.virtual_region_with_margin.y
        if not taller and pair <= self.scrollable_content_region.height:
            return
        self.release_anchor()
        self._scroll_to_top(top)

    def _start_in_view(self, reply: LogEntry) -> bool:
        """Whether the last frame laid `reply` out with its first row in the view. A layout
        that another widget asked for while the reply was still mounting (the status line at a
        turn's end) places it below the body's old end, out of sight; the next one shows it."""
        y = reply.virtual_region.y
        return (
            bool(reply.outer_size.height) and self.scroll_y <= y < self.scroll_y + self.scrollable_content_region.height
        )

    def _scroll_to_top(self, top: LogEntry, refreshes_left: int = 5) -> None:
        """Scroll `top` to the top of the view, now if the layout reaches that far (it does
        once the reply is laid out whole), else after the next refreshes."""
        y = top.virtual_region_with_margin.y
        if y > self.max_scroll_y and refreshes_left:
            self.call_after_refresh(self._scroll_to_top, top, refreshes_left - 1)
            return
        self.scroll_to(y=y, animate=False, immediate=True)

    @on(EarlierButton.Pressed)
    def _earlier_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.load_earlier()
