"""The Resubmissions pane: every synthesis request the aggregator sent back, newest last.

The pane is hidden most of the time and mounted lazily by the app, so its log is made with the
pane (the app can hand it the session's requests before it is mounted) and each request's
Markdown is parsed only when the pane is drawn.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from ensemble_tui.core.chat.session import Resubmission
from ensemble_tui.ui.chat_log.chat_view import LogEntry, MessageLog
from ensemble_tui.ui.chat_log.rendering import deferred_markdown

EMPTY_HINT = (
    "No resubmissions in this chat. When the aggregator asks the proposers for another round, its request appears here."
)


class ResubmissionEntry(LogEntry):
    def __init__(self, resubmission: Resubmission) -> None:
        heading = Text(f"Synthesis request · aggregator pass {resubmission.iteration}", style="bold")
        super().__init__(resubmission, Group(heading, deferred_markdown(resubmission.text)), "resubmission-entry")


class ResubmissionsPane(Vertical):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._log = MessageLog(ResubmissionEntry, empty_hint=EMPTY_HINT, id="resubmission-log")

    def compose(self) -> ComposeResult:
        yield self._log

    @property
    def log_view(self) -> MessageLog:
        """The log, mounted or not yet (it keeps what it is given until it is)."""
        return self._log
