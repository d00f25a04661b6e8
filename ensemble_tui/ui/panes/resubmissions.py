"""The Resubmissions pane: every synthesis request the aggregator sent back, newest last.

The pane is hidden most of the time and mounted lazily by the app, so its log is made with the
pane (the app can hand it the session's requests before it is mounted) and each request's
Markdown is parsed only when the pane is drawn.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical

from ensemble_tui.core.chat.session import Resubmission
from ensemble_tui.ui.chat_log.chat_view import LogEntry, MessageLog
from ensemble_tui.ui.chat_log.quote_marks import marked, quotation_clicked, with_marks
from ensemble_tui.ui.chat_log.rendering import deferred_markdown

EMPTY_HINT = (
    "No resubmissions in this chat. When the aggregator asks the proposers for another round, its request appears here."
)


class ResubmissionEntry(LogEntry):
    """One synthesis request; the quotes of the proposals in it marked as the chat marks a
    reply's ("✓ p. 2", "✗ not in the paper"), with the summary line under it."""

    def __init__(self, resubmission: Resubmission) -> None:
        heading = Text(f"Synthesis request · aggregator pass {resubmission.iteration}", style="bold")
        shown, summary = marked(resubmission.text, resubmission.checks)
        body = with_marks(deferred_markdown(shown), resubmission.checks)
        parts = [heading, body] if summary is None else [heading, body, Text(""), summary]
        super().__init__(resubmission, Group(*parts), "resubmission-entry")
        self.checks = resubmission.checks

    def on_click(self, event: events.Click) -> None:
        """A click on a quote mark opens the paper view at that quote's passage."""
        if (quotation := quotation_clicked(event.style.meta, self.checks)) is not None:
            event.stop()
            from ensemble_tui.ui.screens.paper import open_passage

            open_passage(self.app, quotation)


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
