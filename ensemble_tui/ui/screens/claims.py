"""The Claims view, the Claims tab of Compare (F10, palette "Claims", `c` in Compare): the last
run's claim map, disputed claims first.

One card per claim: its kind and text, then a row per model with its stance, a quote of its own
words and the evidence mark (`✓ p. N` / `✗ not in the paper`), then the places it cites. The
map is read from the run record, so a reopened chat shows it too; a map drawn after the reply
fills the view when it comes (`ClaimsView.show`). Cards take the focus in turn (↑/↓, Tab), the
view scrolls to the focused one. Everything in a card came from a model: it is shown as plain
Text (ui/chat_log/rendering.py), never as markup.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.events import Click
from textual.widgets import Label, Static

from ensemble_tui.core.claims.labels import KIND_LABELS
from ensemble_tui.core.claims.model import Claim, ClaimMap
from ensemble_tui.ui.chat_log.rendering import plain
from ensemble_tui.ui.screens.paper import PassageRequested

NO_MAP = "No claim map for the last run: maps are drawn for multi-model turns only."  # fits 78 cells
HINT = "  ↑/↓ claims · p proposals"
EVIDENCE_META = "evidence"  # a mark's meta: the stance's card row (a click opens its quote in the paper)
KIND_STYLES = {"contradiction": "bold yellow", "partial": "bold", "unique": "bold cyan", "consensus": "bold green"}


def claim_renderable(claim: Claim) -> RenderableType:
    """A claim as its card shows it; model text as plain Text."""
    head = Text(f"{KIND_LABELS[claim.kind]}: ", style=KIND_STYLES[claim.kind])
    head.append_text(plain(claim.text))
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True, style="bold")  # the model
    table.add_column(no_wrap=True)  # its stance
    table.add_column(ratio=1)  # a quote of its own words, wrapped
    table.add_column(no_wrap=True)  # the evidence mark, never split
    for row, (model, stance) in enumerate(claim.stances.items()):
        quote = plain(f"“{stance.quote}”") if stance.quote else Text("")
        marker = stance.evidence.marker if stance.evidence is not None else ""
        mark = Text(marker, style="green" if marker.startswith("✓") else "bold red")
        if marker:  # the app's mark text only: the row's number, never model text, in the meta
            mark.stylize(Style(meta={EVIDENCE_META: row}))
        table.add_row(plain(model), Text(stance.stance, style="dim" if stance.stance == "silent" else ""), quote, mark)
    parts: list[RenderableType] = [head, table]
    if claim.citations:
        cites = Text("Cites: ", style="dim")  # ends with a newline: Textual counts lines by them
        cites.append_text(plain(" · ".join(citation.text for citation in claim.citations)))
        parts.append(cites)
    return Group(*parts)


class ClaimCard(Static, can_focus=True):
    """One claim; focusable so the arrows walk the map and the view follows.

    The arrows are the card's own bindings: the focused card's scrolling container also binds
    ↑/↓ (to scroll a line), and once the map overflows the view (80x24) it took them first."""

    BINDINGS = [
        Binding("down", "app.focus_next", "Next claim", show=False, id="claims.next"),
        Binding("up", "app.focus_previous", "Previous claim", show=False, id="claims.previous"),
    ]

    def __init__(self, claim: Claim) -> None:
        super().__init__(claim_renderable(claim), classes=f"claim-card -{claim.kind}")
        self.claim = claim

    def quotations(self) -> list[str]:
        """Each stance's checked words, in the card's row order ("" for a row with none)."""
        return [
            stance.evidence.quote if stance.evidence is not None and stance.evidence.marker else ""
            for stance in self.claim.stances.values()
        ]

    def first_quotation(self) -> str | None:
        return next((quote for quote in self.quotations() if quote), None)

    def on_click(self, event: Click) -> None:
        """A click on a row's ✓/✗ opens the paper at that row's words."""
        row = event.style.meta.get(EVIDENCE_META)
        rows = self.quotations()
        if isinstance(row, int) and 0 <= row < len(rows) and rows[row]:
            event.stop()
            self.post_message(PassageRequested(rows[row]))

    def on_focus(self) -> None:
        """Show the whole claim: its top at the top of the view once its layout is known."""
        self.call_after_refresh(self.scroll_visible, top=True, animate=False)


class ClaimsView(Vertical):
    """The map's title line (the question, the summary) over its cards; `show` replaces the map."""

    DEFAULT_CSS = """
    ClaimsView { height: 1fr; }
    ClaimsView #claims-title { padding: 0 1; }
    ClaimsView #claims-list { height: 1fr; }
    ClaimsView .claim-card { padding: 0 1; margin: 0 0 1 0; border-left: outer $panel; }
    ClaimsView .claim-card:focus { border-left: outer $accent; background: $boost; }
    """

    def __init__(self, claim_map: ClaimMap | None, question: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.claim_map = claim_map
        self.question = question

    def compose(self) -> ComposeResult:
        yield Label(self.title(), id="claims-title")
        with VerticalScroll(id="claims-list"):
            yield from self.cards()

    def title(self) -> Text:
        title = Text("Claims", style="bold", end="")
        if self.question:  # the question, cut to one line at 80 columns
            question = " ".join(self.question.split())
            title.append(" · ")
            title.append_text(plain(question if len(question) <= 60 else question[:59] + "…"))
        title.append("\n")
        title.append_text(plain(self.claim_map.summary if self.claim_map is not None else NO_MAP))
        title.append(HINT, style="dim")
        return title

    def cards(self) -> list[ClaimCard]:
        return [ClaimCard(claim) for claim in self.claim_map.disputed_first()] if self.claim_map else []

    async def show(self, claim_map: ClaimMap) -> None:
        """Show `claim_map` (drawn after the view opened) in place of what was there."""
        self.claim_map = claim_map
        self.query_one("#claims-title", Label).update(self.title())
        box = self.query_one("#claims-list", VerticalScroll)
        await box.remove_children()
        await box.mount_all(self.cards())

    def focus_first(self) -> None:
        cards = list(self.query(ClaimCard))
        if cards:
            cards[0].focus()
