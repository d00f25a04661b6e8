"""A model pane (ChatGPT, Claude, Gemini, or a provider added by a configuration file): that
model's last output and the query before it.

Only outputs as proposer or single model reach it, never the aggregator's, because the core
emits ProposalReceived for those alone. A note from the core about how the model was asked
(for example that it got the PDF as extracted text) is shown above the output.

The pane is usually hidden while outputs arrive (the Chat pane is in front during a run), so
it never pays for rendering what nobody sees: an output's Markdown is parsed when the pane is
first drawn after it changed (`deferred_markdown`): five 50 KB proposals arriving during a turn
cost ~70 ms each to parse, on the event loop, while the user was typing in the Chat pane. The app
mounts the pane lazily (after the first frame), so `show()` only records what to show, and the
pane paints it once it is mounted.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ensemble_tui.core.chat.session import ModelOutput
from ensemble_tui.ui.chat_log.quote_marks import marked, quotation_clicked, with_marks
from ensemble_tui.ui.chat_log.rendering import deferred_markdown, plain

Shown = tuple[ModelOutput | None, str, str | None]


class ModelPane(VerticalScroll):
    def __init__(self, provider: str, *, run_key: str | None = None, id: str | None = None) -> None:
        super().__init__(id=id, classes="model-pane")
        self.provider = provider
        self.run_key = run_key  # the key that runs this provider alone, if it is not a button
        self.output: ModelOutput | None = None
        self._wanted: Shown = (None, "", None)  # what show() was last asked to show
        self._painted: Shown | None = None  # what the widgets show (None: not painted yet)
        self._can_paint = False  # set on mount
        # Held here, not queried: a pane mounted as the app quits may never get its children.
        self._heading = Static(classes="model-heading")
        self._unavailable = Static(classes="model-unavailable")
        self._note = Static(classes="model-note")
        self._query_label = Static(Text("Query", style="bold"), classes="model-label query-label")
        self._query = Static(classes="model-query")
        self._output_label = Static(Text("Output", style="bold"), classes="model-label output-label")
        self._body = Static(classes="model-output")

    def compose(self) -> ComposeResult:
        yield self._heading
        yield self._unavailable
        yield self._note
        yield self._query_label
        yield self._query
        yield self._output_label
        yield self._body

    def on_mount(self) -> None:
        self._can_paint = True
        self._paint()

    def show(self, output: ModelOutput | None, model: str, unavailable: str | None = None) -> None:
        """Show `output` (None: nothing yet in this chat); `unavailable` explains a missing key.

        Called for every pane after every turn, so an unchanged pane is left alone: re-rendering
        a long output is the expensive part. Before the pane is mounted this only records the
        request; mounting paints the latest one.
        """
        self.output = output
        self._wanted = (output, model, unavailable)
        if self._can_paint:
            self._paint()

    def repaint(self) -> None:
        """Render the output again (math shown as text or as LaTeX changed)."""
        self._painted = None
        if self._can_paint:
            self._paint()

    def replace_output(self, output: ModelOutput | None) -> None:
        """Show `output` in place of the current one, keeping the model and any warning."""
        _output, model, unavailable = self._wanted
        self.show(output, model, unavailable)

    def _paint(self) -> None:
        if self._wanted == self._painted:
            return
        output, model, unavailable = self._painted = self._wanted
        heading = Text(self.provider, style="bold", end="")
        heading.append("  ·  ")
        heading.append_text(plain(output.model if output and output.model else model))
        self._heading.update(heading)
        self._unavailable.update(plain(f"⚠ {unavailable}") if unavailable else "")
        self._unavailable.display = bool(unavailable)
        self._note.update(plain(f"ℹ {output.note}") if output and output.note else "")
        self._note.display = bool(output and output.note)
        has_output = output is not None
        for widget in (self._query_label, self._query, self._output_label):
            widget.display = has_output
        self._query.update(plain(output.query) if output else "")
        self._body.set_class(not has_output, "-empty")
        self._body.update(self._output_renderable(output) if output else plain(self._empty_text()))
        self.scroll_home(animate=False)

    def on_click(self, event: events.Click) -> None:
        """A click on a quote mark opens the paper view at that quote's passage."""
        output = self._painted[0] if self._painted is not None else None
        if output is not None and (quotation := quotation_clicked(event.style.meta, output.checks)) is not None:
            event.stop()
            from ensemble_tui.ui.screens.paper import open_passage

            open_passage(self.app, quotation)

    @staticmethod
    def _output_renderable(output: ModelOutput) -> RenderableType:
        """The output as Markdown, with its quote checks marked and summed up under it."""
        shown, summary = marked(output.text, output.checks)
        body = with_marks(deferred_markdown(shown), output.checks)
        return body if summary is None else Group(body, Text(""), summary)

    def _empty_text(self) -> str:
        text = f"No output from {self.provider} yet in this chat. It appears here after a run that uses it."
        if self.run_key:
            text += f" {self.run_key} (or the palette, Ctrl+P) sends with {self.provider} alone."
        return text
