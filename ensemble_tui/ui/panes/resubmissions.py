"""The Resubmissions pane: every synthesis request the aggregator sent back, newest last."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from ensemble_tui.core.session import Resubmission
from ensemble_tui.ui.chat_view import LogEntry, MessageLog
from ensemble_tui.ui.rendering import markdown

EMPTY_HINT = (
    "No resubmissions in this chat. When the aggregator asks the proposers for another round, its request appears here."
)


class ResubmissionEntry(LogEntry):
    def __init__(self, resubmission: Resubmission) -> None:
        heading = Text(f"Synthesis request · aggregator pass {resubmission.iteration}", style="bold")
        super().__init__(resubmission, Group(heading, markdown(resubmission.text)), "resubmission-entry")


class ResubmissionsPane(Vertical):
    def compose(self) -> ComposeResult:
        yield MessageLog(ResubmissionEntry, empty_hint=EMPTY_HINT, id="resubmission-log")

    @property
    def log_view(self) -> MessageLog:
        return self.query_one(MessageLog)
