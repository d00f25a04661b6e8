"""The Markdown transcript in `Chats/`, rendered one message at a time.

A transcript is its head and one block a message (core/chat/session.py's `transcript_block`,
which depends on its message alone). Rendering a block is the costly part (its Markdown is made
inert), so the blocks of the chat last written are kept: a new turn renders its own messages
and a redo its new reply, whatever the chat's length (bench row 9.d). The file itself is still
replaced whole, atomically (session_store writes it with core/store/atomic.py), so a crash
leaves it as before or as after.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from ensemble_tui.core.chat.session import (
    ChatMessage,
    SessionData,
    join_transcript,
    transcript_block,
    transcript_head,
    unchanged_prefix,
)


@dataclass
class TranscriptBlocks:
    """The rendered blocks of one chat's messages, in order (the chat last written)."""

    chat: str = ""
    messages: list[ChatMessage] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def render(self, session: SessionData) -> str:
        """The session's transcript, as `render_transcript` gives it; only the messages not
        rendered before (those after the longest unchanged start of the chat) are rendered."""
        with self._lock:
            keep = unchanged_prefix(self.messages, session.history) if session.id == self.chat else 0
            added = [transcript_block(message) for message in session.history[keep:]]
            self.chat, self.messages = session.id, list(session.history)
            self.blocks = [*self.blocks[:keep], *added]
            return join_transcript(transcript_head(session), self.blocks)
