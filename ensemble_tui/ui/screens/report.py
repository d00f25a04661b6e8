"""The run report: every call, answer, review and vote of one run of this chat.

The runs of the chat are listed at the top (newest selected); Left/Right or the list pick
another, and the report gets the full width below (its calls table has ten columns). The
report comes from the core (`core.report.turn_report`, the same sections the exports use) and
is rendered through ui/chat_log/rendering.py, because it is full of model text. The screen only shows;
exporting is asked of the app with ExportRequested.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.style import Style as RichStyle
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalScroll, Vertical, VerticalScroll
from textual.events import Click
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList, Static
from textual.widgets.option_list import Option

from ensemble_tui.core.chat.modes import Style, parse_run_mode
from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.records.report import outcome_label, turn_report
from ensemble_tui.core.store.archive import StoredTurn
from ensemble_tui.ui.chat_log.rendering import markdown, plain
from ensemble_tui.ui.screens.export_picker import ExportChoice, ExportPicker
from ensemble_tui.ui.screens.paper import open_passage
from ensemble_tui.ui.turns.active_turn import run_label

QUESTION_CHARS = 70
QUOTE_CHECKS = "Quote checks"  # the section whose marks open the paper
QUOTE_META = "report_quote"  # a mark's meta: its quote's number in the run's checks
TABLE_WIDTH = 112  # a calls table's width with no cell wrapped (`claude-son`/`net-4-6`); narrower scrolls


def describe_run(record: TurnRecord, extra_providers: Sequence[str] = ()) -> str:
    """ "All · Council" from a stored record; values this version cannot parse are shown as stored."""
    try:
        mode = parse_run_mode(record.mode, tuple(extra_providers))
    except ValueError:
        return record.mode
    try:
        style = Style.parse(record.style)
    except ValueError:
        return f"{mode.label} · {record.style}"
    return run_label(mode, style)


def run_option(number: int, record: TurnRecord, extra_providers: Sequence[str], replaced: bool = False) -> Text:
    """One line of the list of runs: number, mode and style, outcome, the question."""
    question = " ".join(record.query.split())
    if len(question) > QUESTION_CHARS:
        question = question[: QUESTION_CHARS - 1] + "…"
    text = Text(f"{number}. ", style="bold", end="", no_wrap=True, overflow="ellipsis")
    text.append_text(plain(describe_run(record, extra_providers)))
    text.append(f" · {outcome_label(record, replaced)} · ", style="dim" if record.outcome == "final" else "bold red")
    text.append_text(plain(question))
    return text


class ReportScreen(Screen[None]):
    """Shows `turns` (a chat's runs, oldest first), starting with `start` (default: the newest)."""

    BINDINGS = [
        Binding("escape", "close", "Close", id="report.close"),
        Binding("left", "step(-1)", "Previous run", id="report.previous"),
        Binding("right", "step(1)", "Next run", id="report.next"),
        Binding("e", "export", "Export", id="report.export", tooltip="Export this run or the whole chat"),
        Binding("o", "open_passage", "Passage", id="report.passage", tooltip="The run's first quote in the paper"),
        # Priority: the list of runs has the focus and would take PageUp/PageDown for itself.
        Binding("pagedown", "page(1)", "Page down", show=False, priority=True, id="report.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, priority=True, id="report.page_up"),
    ]
    DEFAULT_CSS = f"""
    ReportScreen .report-table-box {{ height: auto; overflow-x: auto; overflow-y: hidden; }}
    ReportScreen .report-table-box .report-section {{ width: 1fr; min-width: {TABLE_WIDTH}; }}
    """

    class ExportRequested(Message):
        """The user wants `choice` written; `record` and `number` name the run shown."""

        def __init__(self, choice: ExportChoice, record: TurnRecord, number: int) -> None:
            super().__init__()
            self.choice = choice
            self.record = record
            self.number = number

    def __init__(
        self,
        turns: Sequence[StoredTurn],
        extra_providers: Sequence[str] = (),
        start: int | None = None,
        replaced: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__()
        self.turns = list(turns)
        self.replaced = replaced  # the runs whose reply a redo replaced (core/records/report.py)
        self.extra_providers = tuple(extra_providers)
        self.index = len(self.turns) - 1 if start is None else start

    @property
    def record(self) -> TurnRecord:
        return self.turns[self.index].record

    def compose(self) -> ComposeResult:
        with Vertical(id="report-runs-box"):
            yield Label(Text("Runs of this chat (←/→ or ↑/↓ pick one)", style="bold"), classes="report-runs-title")
            yield OptionList(
                *(
                    Option(
                        run_option(number, stored.record, self.extra_providers, number - 1 in self.replaced),
                        id=str(number - 1),
                    )
                    for number, stored in enumerate(self.turns, start=1)
                ),
                id="report-runs",
            )
        yield VerticalScroll(id="report-body")
        yield Footer(compact=True)

    async def on_mount(self) -> None:
        runs = self.query_one("#report-runs", OptionList)
        runs.highlighted = self.index
        runs.focus()
        await self.show_run(self.index)

    async def show_run(self, index: int) -> None:
        """Replace the body with run `index`'s report, one Static per section.

        The old sections are awaited out before the new ones go in, so quick Left/Right presses
        (each handled in turn) never show two reports at once.
        """
        self.index = index
        record = self.record
        title = Text(f"Run report · run {index + 1} of {len(self.turns)} · ", style="bold", end="")
        title.append_text(plain(describe_run(record, self.extra_providers)))
        sections: list[Static | HorizontalScroll] = [Static(title, classes="report-title")]
        for section in turn_report(record, replaced=index in self.replaced):
            body = markdown(f"## {section.title}\n\n{section.markdown}")
            if section.title == QUOTE_CHECKS:
                body = quote_checks_renderable(record)
            shown = Static(body, classes="report-section")
            # A section that is one table keeps its columns whole and scrolls sideways when narrow.
            wide = section.markdown.lstrip().startswith("|")
            sections.append(HorizontalScroll(shown, classes="report-table-box") if wide else shown)
        body = self.query_one("#report-body", VerticalScroll)
        await body.remove_children()
        await body.mount_all(sections)
        body.scroll_home(animate=False)
        self.refresh_bindings()  # `o` (the passage) where this run has checked quotes (check_action)

    @on(OptionList.OptionHighlighted, "#report-runs")
    async def _run_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        index = int(event.option_id or 0)
        if index != self.index:
            await self.show_run(index)

    def action_step(self, step: int) -> None:
        """Move the list's highlight (the handler shows that run). Counted from the highlight,
        not the run shown, so a burst of presses moves as far as it should."""
        runs = self.query_one("#report-runs", OptionList)
        target = (self.index if runs.highlighted is None else runs.highlighted) + step
        if 0 <= target < len(self.turns):
            runs.highlighted = target

    def action_page(self, step: int) -> None:
        """PageUp/PageDown page through the report, whichever part has the focus."""
        body = self.query_one("#report-body", VerticalScroll)
        if step > 0:
            body.scroll_page_down(animate=False)
        else:
            body.scroll_page_up(animate=False)

    def action_export(self) -> None:
        number = self.index + 1
        record = self.record

        def chosen(choice: ExportChoice | None) -> None:
            if choice is not None:
                self.post_message(self.ExportRequested(choice, record, number))

        self.app.push_screen(ExportPicker(), chosen)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_passage":
            return bool(self.turns) and bool(run_quotations(self.record))
        return True

    def action_open_passage(self) -> None:
        """The run's first checked quote (the final reply's first, if it has one) in the paper."""
        quotes = run_quotations(self.record)
        if quotes:
            open_passage(self.app, quotes[0][1])

    def on_click(self, event: Click) -> None:
        """A click on a mark of the Quote checks section opens that quote's passage."""
        number = event.style.meta.get(QUOTE_META)
        quotes = run_quotations(self.record) if self.turns else []
        if isinstance(number, int) and 0 <= number < len(quotes):
            event.stop()
            open_passage(self.app, quotes[number][1])

    def action_close(self) -> None:
        self.dismiss(None)


def run_quotations(record: TurnRecord) -> list[tuple[str, str]]:
    """Every checked quote of the run as (whose text, the quotation), the final reply's first."""
    from ensemble_tui.core.paper.quotes import QuoteReport

    found: list[tuple[str, str]] = []
    for artifact in sorted(record.artifacts, key=lambda a: bool(a.author)):  # the final reply ("") first
        if artifact.kind == "quotes":
            report = QuoteReport.from_record(artifact.data)
            found += [(artifact.author, check.quotation.text) for check in report.quotes]
    return found


def quote_checks_renderable(record: TurnRecord) -> RenderableType:
    """The Quote checks section as the core words it (core.records.report), each quote's mark
    clickable: the mark's cells carry its number in `run_quotations`; the words are plain Text."""
    from ensemble_tui.core.paper.quotes import QuoteReport, stderr_lines

    numbers = {quote: n for n, quote in reversed(list(enumerate(run_quotations(record))))}
    section = Text(end="")
    for artifact in (a for a in record.artifacts if a.kind == "quotes"):
        report = QuoteReport.from_record(artifact.data)
        section.append(f"{artifact.author or 'Final reply'}:", style="bold")
        section.append_text(plain(f" {report.summary() or 'nothing to check'}"))
        section.append("\n")
        lines = stderr_lines(report) or ["no quotations"]
        for n, line in enumerate(lines):
            section.append("\n • ", style="bold")
            start = len(section)
            section.append_text(plain(line))
            if n < len(report.quotes) and not report.notice:
                check = report.quotes[n]
                meta: dict[str, Any] = {QUOTE_META: numbers.get((artifact.author, check.quotation.text))}
                mark = start + len("quote ")
                section.stylize(RichStyle(meta=meta, underline=True), mark, mark + len(check.marker))
        section.append("\n\n")
    section.rstrip()
    return Group(markdown(f"## {QUOTE_CHECKS}"), section)
