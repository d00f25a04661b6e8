"""The Compare view: the last run's proposals in columns, one per model, round by round, and on
its Claims tab the run's claim map (ui/screens/claims.py). `c` and `p` switch the tabs (the
footer shows the one to go to); F10 on the main screen opens Compare on its Claims tab.

Side by side when the terminal is wider than 80 columns and there are at most three proposals,
stacked otherwise; `l` switches. Side by side, the columns scroll together (by relative
position). Each column is headed by its model, the latency and cost of its calls, its place in
the tally (council, vote, debate) and its quote check against the chat's PDF, computed in a
thread worker so the screen never waits for pypdf; each quote is then marked in the text as the
chat marks it. A run that was cancelled or failed says so in the title. Model text is shown
through ui/chat_log/rendering.py.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.events import Click, Resize
from textual.screen import Screen
from textual.signal import Signal
from textual.widgets import Footer, Label, Static, TabbedContent, TabPane

from ensemble_tui.core.claims.model import ClaimMap
from ensemble_tui.core.paper.quotes import QuoteReport, check_reply_against_pdf
from ensemble_tui.core.records.compare import CompareRound, Proposal
from ensemble_tui.core.turn.events import ClaimsMapped
from ensemble_tui.ui.chat_log.quote_marks import marked, quotation_clicked, quotations, with_marks
from ensemble_tui.ui.chat_log.rendering import markdown, plain
from ensemble_tui.ui.screens.claims import ClaimCard, ClaimsView
from ensemble_tui.ui.screens.paper import PassageRequested, open_passage

log = logging.getLogger(__name__)

SIDE_BY_SIDE_MIN_WIDTH = 81  # at 80 columns three columns of ~26 characters are unreadable
SIDE_BY_SIDE_MAX_COLUMNS = 3
NO_PDF = "Quotes: no PDF"
CHECKING = "Quotes: checking…"
NOTHING_TO_CHECK = "Quotes: none to check"
NO_ROUNDS = "The last run has no proposals to compare."
PROPOSALS, CLAIMS = "proposals", "claims"  # the tabs' ids
ROUND_ACTIONS = {"step", "toggle_layout"}  # the Proposals tab's own keys


def quote_summary(report: QuoteReport) -> Text:
    """A column's quote line: in the warning colour when a quote or reference is not in the
    paper, or nothing could be checked."""
    line = plain(report.summary() or NOTHING_TO_CHECK)
    line.style = "" if report.all_found else "bold yellow"
    return line


class CompareColumn(VerticalScroll):
    """One model's proposal; tells the screen when it scrolls so the others can follow."""

    def __init__(self, proposal: Proposal, quote_line: Text, checks: dict[str, Any] | None = None) -> None:
        super().__init__(classes="compare-column")
        self.proposal = proposal
        self.quote_line = quote_line
        self.checks = checks

    def compose(self) -> ComposeResult:
        yield Static(self.header(), classes="compare-header")
        yield Static(self.body(), classes="compare-body")

    def body(self) -> RenderableType:
        """The proposal, each checked quote followed by its mark as in the chat (quote_marks.py)."""
        shown, _summary = marked(self.proposal.text, self.checks)  # the summary is in the header
        return with_marks(markdown(shown), self.checks)

    def header(self) -> Text:
        proposal = self.proposal
        text = Text(end="")
        text.append_text(plain(proposal.author))
        text.stylize("bold")
        if proposal.model:
            text.append(" · ")
            text.append_text(plain(proposal.model))
        text.append("\n" + proposal.figures, style="dim")
        if proposal.standing:
            text.append("\n")
            text.append_text(plain(proposal.standing))
        text.append("\n")
        text.append_text(self.quote_line)
        return text

    def show_checks(self, line: Text, checks: dict[str, Any] | None) -> None:
        self.quote_line = line
        self.query_one(".compare-header", Static).update(self.header())
        if checks:
            self.checks = checks
            self.query_one(".compare-body", Static).update(self.body())

    def on_click(self, event: Click) -> None:
        """A click on a quote mark opens the paper at that quote's passage."""
        if (quotation := quotation_clicked(event.style.meta, self.checks)) is not None:
            event.stop()
            self.post_message(PassageRequested(quotation))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        screen = self.screen
        if isinstance(screen, CompareScreen):
            screen.follow(self)


RESTYLE = "restyle"  # what Compare's `r` closes with: the app restyles the turn (ui/actions/restyle_actions.py)


class CompareScreen(Screen[str | None]):
    """Shows `rounds` (from core.compare.compare_rounds), starting with the last round, and
    `claim_map` on the Claims tab; opens on `tab` ("proposals" or "claims")."""

    DEFAULT_CSS = """
    CompareScreen > TabbedContent { height: 1fr; }
    CompareScreen > TabbedContent > ContentSwitcher { height: 1fr; }
    CompareScreen TabPane { height: 1fr; padding: 0; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="compare.close"),
        # Priority: a column with a wide table scrolls sideways, and would otherwise take the arrows.
        Binding("left", "step(-1)", "Rounds", priority=True, id="compare.previous", key_display="←→"),
        Binding("right", "step(1)", "Next round", priority=True, id="compare.next", show=False),  # "←→ Rounds" says it
        Binding("l", "toggle_layout", "Layout", id="compare.layout", tooltip="Side by side or stacked"),
        Binding("r", "restyle", "Restyle", id="compare.restyle", tooltip="This turn again in another style"),
        Binding(
            "c", f"show_tab('{CLAIMS}')", "Claims", id="compare.claims", tooltip="Where the models agree and disagree"
        ),
        Binding(
            "p", f"show_tab('{PROPOSALS}')", "Proposals", id="compare.proposals", tooltip="The proposals side by side"
        ),
        Binding("o", "open_passage", "Passage", id="compare.passage", tooltip="The first quote's passage in the paper"),
    ]

    def __init__(
        self,
        rounds: Sequence[CompareRound],
        pdf: Path | None,
        cache_dir: Path,
        claim_map: ClaimMap | None = None,
        *,
        question: str = "",
        tab: str = PROPOSALS,
        turn_id: int | None = None,
        late_claims: Signal[ClaimsMapped] | None = None,
    ) -> None:
        """`turn_id`: the archive's id of the run shown; `late_claims`: where a claim map drawn
        after its reply is announced (the TurnController's signal): that run's is shown here."""
        super().__init__()
        self.claim_map = claim_map
        self.turn_id = turn_id
        self.late_claims = late_claims
        self.question = question
        self.tab = tab
        self.rounds = list(rounds)
        self.pdf = pdf
        self.cache_dir = cache_dir
        self.index = len(self.rounds) - 1
        self.side_by_side: bool | None = None  # None: chosen from the width and the count
        self.quote_lines: dict[str, Text] = {}  # proposal text -> its summary, once checked (quote_summary)
        self.checks: dict[str, dict[str, Any]] = {}  # proposal text -> its checks (QuoteReport.as_record)
        self._following = False

    @property
    def round(self) -> CompareRound:
        return self.rounds[self.index]

    def compose(self) -> ComposeResult:
        with TabbedContent(initial=self.tab):
            with TabPane("Proposals", id=PROPOSALS):
                yield Label(id="compare-title")
                yield VerticalScroll(id="compare-columns")
            with TabPane("Claims", id=CLAIMS):
                yield ClaimsView(self.claim_map, self.question, id="claims-view")
        yield Footer(compact=True)

    async def on_mount(self) -> None:
        if self.late_claims is not None and self.turn_id is not None:
            self.late_claims.subscribe(self, self._late_map)
        if self.rounds:
            await self.show_round(self.index)
        else:
            self.query_one("#compare-title", Label).update(NO_ROUNDS)
        if self.pdf is not None and self.rounds:
            self.check_quotes()
        self.focus_tab()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Each tab's own keys, and the key to the other tab, only where they apply."""
        if action in ROUND_ACTIONS:
            return self.tab == PROPOSALS and bool(self.rounds)
        if action == "show_tab":
            return bool(parameters) and parameters[0] != self.tab
        if action == "open_passage":  # where the focus is on a checked quote
            return self.focused_quotation() is not None
        return True

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """A tab was chosen (a key, a click): its keys in the footer, the focus in it."""
        self.tab = event.pane.id or PROPOSALS
        self.refresh_bindings()
        self.focus_tab()

    def focus_tab(self) -> None:
        if self.tab == CLAIMS:
            self.query_one(ClaimsView).focus_first()
        elif columns := self.columns():
            columns[0].focus()

    def _late_map(self, event: ClaimsMapped) -> None:
        """A claim map drawn after its reply: shown if it is this run's (keyed by archive id)."""
        if event.turn_id == self.turn_id:
            self.run_worker(self.show_claim_map(event.claims), group="claims-view", exit_on_error=False)

    async def show_claim_map(self, claim_map: ClaimMap) -> None:
        """The run's map, drawn after the view opened (the reply never waits for it)."""
        self.claim_map = claim_map
        await self.query_one(ClaimsView).show(claim_map)
        if self.tab == CLAIMS:
            self.query_one(ClaimsView).focus_first()

    def side(self) -> bool:
        if self.side_by_side is not None:
            return self.side_by_side
        if not self.rounds:
            return False
        return self.app.size.width >= SIDE_BY_SIDE_MIN_WIDTH and len(self.round.proposals) <= SIDE_BY_SIDE_MAX_COLUMNS

    def columns(self) -> list[CompareColumn]:
        return list(self.query(CompareColumn))

    def quote_line(self, proposal: Proposal) -> Text:
        if self.pdf is None:
            return plain(NO_PDF)
        return self.quote_lines.get(proposal.text) or plain(CHECKING)

    async def show_round(self, index: int, author: str | None = None) -> None:
        """Replace the columns with round `index`'s (the old ones are awaited out first); the
        focus goes to `author`'s column if the round has one, else the first."""
        self.index = index
        current = self.round
        title = Text(f"Compare · {current.title} · round {index + 1} of {len(self.rounds)}", style="bold", end="")
        if current.mark:
            title.append(f" · ✗ run {current.mark}", style="bold yellow")
        hints = ("←/→ rounds · " if len(self.rounds) > 1 else "") + "Tab next column"
        title.append(f"  {hints}", style="dim")
        self.query_one("#compare-title", Label).update(title)
        box = self.query_one("#compare-columns", VerticalScroll)
        await box.remove_children()
        await box.mount_all([CompareColumn(p, self.quote_line(p), self.checks.get(p.text)) for p in current.proposals])
        self.apply_layout()
        columns = self.columns()
        if columns and self.tab == PROPOSALS:
            next((column for column in columns if column.proposal.author == author), columns[0]).focus()

    def apply_layout(self) -> None:
        self.query_one("#compare-columns").set_class(self.side(), "side")

    def on_resize(self, _event: Resize) -> None:
        self.apply_layout()

    def follow(self, leader: CompareColumn) -> None:
        """Side by side, scroll the other columns to the leader's relative position."""
        if self._following or not self.query_one("#compare-columns").has_class("side"):
            return
        share = leader.scroll_y / leader.max_scroll_y if leader.max_scroll_y else 0.0
        self._following = True
        try:
            for column in self.columns():
                if column is not leader:
                    column.scroll_to(y=round(share * column.max_scroll_y), animate=False, immediate=True)
        finally:
            self._following = False

    @work(thread=True, exclusive=True, group="compare-quotes", exit_on_error=False)
    def check_quotes(self) -> None:
        """Check every round's proposals against the PDF, off the event loop, the round shown
        (the last) first. A checker failure costs that column its line, never the app."""
        assert self.pdf is not None
        done: set[str] = set()
        for current in reversed(self.rounds):
            for proposal in current.proposals:
                if proposal.text in done:
                    continue
                done.add(proposal.text)
                checks: dict[str, Any] | None = None
                try:
                    report = check_reply_against_pdf(proposal.text, self.pdf, self.cache_dir)
                    summary, checks = quote_summary(report), report.as_record()
                except Exception as exc:  # noqa: BLE001 - a bug in the checker must not end the app
                    log.warning("quote check failed: %s", exc)
                    summary = plain(f"Quotes: cannot be checked ({exc})")
                self.app.call_from_thread(self.quote_checked, proposal.text, summary, checks)

    def quote_checked(self, text: str, summary: Text, checks: dict[str, Any] | None = None) -> None:
        self.quote_lines[text] = summary
        if checks:
            self.checks[text] = checks
        for column in self.columns():
            if column.proposal.text == text:
                column.show_checks(summary, checks)
        self.refresh_bindings()  # `o` once the focused column has checked quotes

    async def action_step(self, step: int) -> None:
        target = self.index + step
        if 0 <= target < len(self.rounds):
            # The column read stays in focus from round to round (it went back to ChatGPT's).
            focused = self.focused
            author = focused.proposal.author if isinstance(focused, CompareColumn) else None
            await self.show_round(target, author)

    def action_toggle_layout(self) -> None:
        self.side_by_side = not self.side()
        self.apply_layout()

    def focused_quotation(self) -> str | None:
        """The first quote of the focused column (Proposals) or claim card (Claims)."""
        focused = self.focused
        if isinstance(focused, CompareColumn):
            return next(iter(quotations(focused.checks)), None)
        if isinstance(focused, ClaimCard):
            return focused.first_quotation()
        return None

    def action_open_passage(self) -> None:
        quotation = self.focused_quotation()
        if quotation is None:
            self.app.notify("No checked quote here to open in the paper.", severity="warning")
            return
        self.open_quotation(quotation)

    def on_passage_requested(self, event: PassageRequested) -> None:
        event.stop()
        self.open_quotation(event.quotation)

    def open_quotation(self, quotation: str) -> None:
        open_passage(self.app, quotation, pdf=self.pdf, cache_dir=self.cache_dir)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_restyle(self) -> None:
        """Close, asking the app for the last turn in another style from these proposals."""
        self.dismiss(RESTYLE)
