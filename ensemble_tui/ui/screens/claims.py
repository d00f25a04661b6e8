"""The Claims view (F10, palette "Claims"): the last run's claim map, disputed claims first.

One card per claim: its kind and text, then a row per model with its stance, a quote of its own
words and the evidence mark (`✓ p. N` / `✗ not in the paper`), then the places it cites. The
map is read from the run record, so a reopened chat shows it too. Cards take the focus in turn
(↑/↓, Tab), the view scrolls to the focused one, Esc closes. Everything in a card came from a
model: it is shown as plain Text (ui/chat_log/rendering.py), never as markup.
"""

from __future__ import annotations

from typing import Any, Protocol

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from ensemble_tui.core.claims.model import Claim, ClaimMap, claims_of
from ensemble_tui.ui.chat_log.rendering import plain

NO_MAP = "The last run has no claim map: it is drawn for multi-model turns, with the map on in Settings."
KIND_LABELS = {"contradiction": "Disputed", "partial": "Partial", "unique": "Unique", "consensus": "Agreed"}
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
    for model, stance in claim.stances.items():
        quote = plain(f"“{stance.quote}”") if stance.quote else Text("")
        marker = stance.evidence.marker if stance.evidence is not None else ""
        mark = Text(marker, style="green" if marker.startswith("✓") else "bold red")
        table.add_row(plain(model), Text(stance.stance, style="dim" if stance.stance == "silent" else ""), quote, mark)
    parts: list[RenderableType] = [head, table]
    if claim.citations:
        cites = Text("Cites: ", style="dim")  # ends with a newline: Textual counts lines by them
        cites.append_text(plain(" · ".join(citation.text for citation in claim.citations)))
        parts.append(cites)
    return Group(*parts)


class ClaimCard(Static, can_focus=True):
    """One claim; focusable so the arrows walk the map and the view follows."""

    def __init__(self, claim: Claim) -> None:
        super().__init__(claim_renderable(claim), classes=f"claim-card -{claim.kind}")
        self.claim = claim


class ClaimsScreen(Screen[None]):
    """Shows `claim_map`, disputed claims first, the first one focused."""

    DEFAULT_CSS = """
    ClaimsScreen #claims-title { padding: 0 1; }
    ClaimsScreen #claims-list { height: 1fr; }
    ClaimsScreen .claim-card { padding: 0 1; margin: 0 0 1 0; border-left: outer $panel; }
    ClaimsScreen .claim-card:focus { border-left: outer $accent; background: $boost; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="claims.close"),
        Binding("down", "app.focus_next", "Next claim", show=False, id="claims.next"),
        Binding("up", "app.focus_previous", "Previous claim", show=False, id="claims.previous"),
    ]

    def __init__(self, claim_map: ClaimMap, title: str = "") -> None:
        super().__init__()
        self.claim_map = claim_map
        self.run_title = title

    def compose(self) -> ComposeResult:
        title = Text("Claims", style="bold", end="")
        if self.run_title:  # the question, cut to one line at 80 columns
            question = " ".join(self.run_title.split())
            title.append(" · ")
            title.append_text(plain(question if len(question) <= 60 else question[:59] + "…"))
        title.append("\n")
        title.append_text(plain(self.claim_map.summary))
        title.append("  ↑/↓ claims · Esc close", style="dim")
        yield Label(title, id="claims-title")
        with VerticalScroll(id="claims-list"):
            yield from (ClaimCard(claim) for claim in self.claim_map.disputed_first())
        yield Footer(compact=True)

    def on_mount(self) -> None:
        cards = list(self.query(ClaimCard))
        if cards:
            cards[0].focus()

    def action_close(self) -> None:
        self.dismiss(None)


class ClaimsHost(Protocol):
    """What opening the view needs of the app: the chat's runs, a status line, a screen stack."""

    archive_flow: Any  # ui/actions/archive_flow.py's ArchiveFlow (its session_turns())

    def say(self, text: str) -> None: ...
    def push_screen(self, screen: Any, callback: Any = None) -> Any: ...


def show_claims(app: ClaimsHost) -> None:
    """Open the Claims view on the chat's last run (read from the archive), or say why not."""
    turns = app.archive_flow.session_turns()
    if turns is None:
        return  # the archive could not be read: a toast said so
    claim_map = claims_of(turns[-1].record.artifacts) if turns else None
    if claim_map is None or not claim_map.claims:
        app.say(NO_MAP)
        return
    app.push_screen(ClaimsScreen(claim_map, turns[-1].record.query))
