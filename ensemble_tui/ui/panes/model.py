"""A model pane (ChatGPT, Claude, Gemini, or a provider added by a configuration file): that
model's last output and the query before it.

Only outputs as proposer or single model reach it, never the aggregator's, because the core
emits ProposalReceived for those alone. A note from the core about how the model was asked
(for example that it got the PDF as extracted text) is shown above the output.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ensemble_tui.core.session import ModelOutput
from ensemble_tui.ui.rendering import markdown, plain


class ModelPane(VerticalScroll):
    def __init__(self, provider: str, *, run_key: str | None = None, id: str | None = None) -> None:
        super().__init__(id=id, classes="model-pane")
        self.provider = provider
        self.run_key = run_key  # the key that runs this provider alone, if it is not a button
        self.output: ModelOutput | None = None
        self._shown: tuple[ModelOutput | None, str, str | None] | None = None

    def compose(self) -> ComposeResult:
        yield Static(classes="model-heading")
        yield Static(classes="model-unavailable")
        yield Static(classes="model-note")
        yield Static(Text("Query", style="bold"), classes="model-label query-label")
        yield Static(classes="model-query")
        yield Static(Text("Output", style="bold"), classes="model-label output-label")
        yield Static(classes="model-output")

    def show(self, output: ModelOutput | None, model: str, unavailable: str | None = None) -> None:
        """Show `output` (None: nothing yet in this chat); `unavailable` explains a missing key.

        Called for every pane after every turn, so an unchanged pane is left alone: re-rendering
        a long output is the expensive part.
        """
        shown = (output, model, unavailable)
        if self.is_mounted and shown == self._shown:
            return
        self._shown = shown
        self.output = output
        heading = Text(self.provider, style="bold", end="")
        heading.append("  ·  ")
        heading.append_text(plain(output.model if output and output.model else model))
        self.query_one(".model-heading", Static).update(heading)
        notice = self.query_one(".model-unavailable", Static)
        notice.update(plain(f"⚠ {unavailable}") if unavailable else "")
        notice.display = bool(unavailable)
        note = self.query_one(".model-note", Static)
        note.update(plain(f"ℹ {output.note}") if output and output.note else "")
        note.display = bool(output and output.note)
        has_output = output is not None
        for selector in (".query-label", ".model-query", ".output-label"):
            self.query_one(selector).display = has_output
        self.query_one(".model-query", Static).update(plain(output.query) if output else "")
        body = self.query_one(".model-output", Static)
        body.set_class(not has_output, "-empty")
        body.update(markdown(output.text) if output else plain(self._empty_text()))
        self.scroll_home(animate=False)

    def _empty_text(self) -> str:
        text = f"No output from {self.provider} yet in this chat. It appears here after a run that uses it."
        if self.run_key:
            text += f" {self.run_key} (or the palette, Ctrl+P) sends with {self.provider} alone."
        return text
