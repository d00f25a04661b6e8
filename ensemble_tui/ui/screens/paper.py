"""The paper view: the PDF's text page by page, opened from a quote mark at the quoted words.

It shows the pages the quote checks read (core/paper/passage.py: running headers and footers
left out), read in a worker thread, never on the event loop. A mark found word for word (✓)
opens at its page with the words highlighted; a mark not found (✗) opens at the closest passage,
labelled so, or says that nothing close was found. Without a PDF, or with a scan, one line says
so. The paper's text is shown as plain Text: it is never parsed as markup.

`open_passage(app, quotation)` is the one way in: the chat's marks, Compare, the Claims tab and
the run report (and a message cursor) call it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Static

from ensemble_tui.core.paper.passage import PaperText, Passage, read_paper_text, reflowed
from ensemble_tui.core.paper.pdf_pages import PdfTextUnavailable
from ensemble_tui.ui.bindings import shown_key

log = logging.getLogger(__name__)


def no_pdf_line(pick_key: str = "Ctrl+O") -> str:
    """The view's line without a PDF; `pick_key`: the picker's key, as Keymap.json maps it."""
    return f"No PDF is attached to this chat, so there is no passage to show ({pick_key} picks one)."


NO_PDF = no_pdf_line()
READING = "Reading the paper…"
NOTHING_CLOSE = "Not found word for word, and nothing close was found in the paper."
QUOTE_STYLE = "black on yellow"
MATCH_STYLE = "underline"
CURRENT_MATCH_STYLE = "reverse bold"
CONTEXT_LINES = 2  # lines shown above the highlighted words


def closest_label(page: int) -> str:
    return f"not found word for word: the closest passage (p. {page})"


class PassageRequested(Message):
    """A quote mark was clicked (or its key pressed) in a view: the screen showing it opens the
    paper at `quotation` with the PDF it checked against."""

    def __init__(self, quotation: str) -> None:
        super().__init__()
        self.quotation = quotation


class PaperScreen(Screen[None]):
    """The paper's text, one page at a time; `quotation` (if any) is located and highlighted."""

    BINDINGS = [
        Binding("escape", "close", "Back", id="paper.close"),
        # Priority: the page's scrolling container binds ←/→ to scroll sideways.
        Binding("right", "page(1)", "Next page", priority=True, id="paper.next"),
        Binding("left", "page(-1)", "Previous page", priority=True, id="paper.previous"),
        Binding("g", "ask('page')", "Go to page", id="paper.goto"),
        Binding("slash", "ask('find')", "Find", key_display="/", id="paper.find"),
        Binding("n", "match(1)", "Next match", id="paper.next_match"),
        Binding("N", "match(-1)", "Previous match", key_display="N", id="paper.previous_match"),
    ]
    DEFAULT_CSS = """
    PaperScreen #paper-title { padding: 0 1; width: 1fr; }
    PaperScreen #paper-note { padding: 0 1; width: 1fr; color: $text-muted; }
    PaperScreen #paper-page { height: 1fr; padding: 0 1; }
    PaperScreen #paper-input { display: none; }
    PaperScreen #paper-input.-open { display: block; }
    """

    def __init__(
        self,
        pdf: Path | None,
        cache_dir: Path,
        quotation: str | None = None,
        page: int | None = None,
        pick_key: str = "Ctrl+O",
    ):
        super().__init__()
        self.pdf = pdf
        self.cache_dir = cache_dir
        self.pick_key = pick_key  # the PDF picker's key, named when there is no PDF
        self.quotation = quotation
        self.paper: PaperText | None = None
        self.page = page or 1
        self.passage: Passage | None = None
        self.note = ""
        self.asking: str | None = None  # "page" or "find" while the input is open
        self.query_text = ""
        self.matches: list[tuple[int, int, int]] = []  # (page, start, end) of each find match
        self.match_index = -1

    def compose(self) -> ComposeResult:
        yield Label(self.title_line(), id="paper-title")
        yield Label(no_pdf_line(self.pick_key) if self.pdf is None else READING, id="paper-note")
        with VerticalScroll(id="paper-page"):
            yield Static(id="paper-body")
        yield Input(id="paper-input")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        if self.pdf is not None:
            self.read_paper(self.pdf)

    @work(thread=True, exclusive=True, group="paper-read", exit_on_error=False)
    def read_paper(self, pdf: Path) -> None:
        """Read the pages and locate the quotation, off the event loop."""
        try:
            paper = read_paper_text(pdf, self.cache_dir)
        except PdfTextUnavailable as exc:
            self.app.call_from_thread(self.unavailable, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - a bug in reading must not end the app
            log.warning("paper view cannot read %s: %s", pdf.name, exc)
            self.app.call_from_thread(self.unavailable, f"{pdf.name} cannot be shown ({exc}).")
            return
        passage = paper.locate(self.quotation) if self.quotation and not paper.notice else None
        self.app.call_from_thread(self.loaded, paper, passage)

    def unavailable(self, line: str) -> None:
        self.query_one("#paper-note", Label).update(line)
        self.query_one("#paper-note", Label).display = True

    def loaded(self, paper: PaperText, passage: Passage | None) -> None:
        self.paper = paper
        self.refresh_bindings()  # the page keys act now (check_action): the footer shows them at once
        if paper.notice:
            self.unavailable(paper.notice)
            return
        self.passage = passage
        if passage is not None:
            self.page = passage.page
            self.note = "" if passage.exact else closest_label(passage.page)
        elif self.quotation:
            self.note = NOTHING_CLOSE
        self.page = min(max(1, self.page), paper.page_count)
        self.show_page()

    def title_line(self) -> Text:
        title = Text("Paper", style="bold", end="")
        if self.pdf is not None:
            title.append(f" · {self.pdf.name}")
        if self.paper is not None and self.paper.page_count and not self.paper.notice:
            title.append(f" · p. {self.page} of {self.paper.page_count}", style="bold")
        return title

    def page_text(self) -> Text:
        """The page shown, with the passage and the find matches highlighted; plain text, no markup."""
        assert self.paper is not None
        # Reflowed: the same length, so the ranges below still fall on the same characters.
        text = Text(reflowed(self.paper.pages[self.page - 1]) or "(this page has no text)", end="")
        passage = self.passage
        if passage is not None and passage.page == self.page:
            text.stylize(QUOTE_STYLE, passage.start, passage.end)
        for number, (page, start, end) in enumerate(self.matches):
            if page == self.page:
                text.stylize(CURRENT_MATCH_STYLE if number == self.match_index else MATCH_STYLE, start, end)
        return text

    def show_page(self, focus_at: int | None = None) -> None:
        """Draw the current page, scrolled to `focus_at` (a character), else to the passage on it."""
        if self.paper is None or self.paper.notice:
            return
        self.query_one("#paper-title", Label).update(self.title_line())
        note = self.note_line()
        self.query_one("#paper-note", Label).update(note)
        self.query_one("#paper-note", Label).display = bool(note.plain)  # no empty line over the page
        text = self.page_text()
        self.query_one("#paper-body", Static).update(text)
        box = self.query_one("#paper-page", VerticalScroll)
        if focus_at is None and self.passage is not None and self.passage.page == self.page:
            focus_at = self.passage.start
        if focus_at is None:
            box.scroll_home(animate=False)
            return
        self.call_after_refresh(self.scroll_to_char, text, focus_at)

    def scroll_to_char(self, text: Text, offset: int) -> None:
        """Scroll so the line holding character `offset` is near the top (a few lines of context)."""
        box = self.query_one("#paper-page", VerticalScroll)
        width = max(1, box.scrollable_content_region.width)
        line = len(text[:offset].wrap(self.app.console, width)) - 1 if offset else 0
        box.scroll_to(y=max(0, line - CONTEXT_LINES), animate=False)

    def note_line(self) -> Text:
        parts: list[str] = []
        if self.note:
            parts.append(self.note)
        if self.query_text:
            if self.matches:
                parts.append(f"“{self.query_text}”: match {self.match_index + 1} of {len(self.matches)} (n/N)")
            else:
                parts.append(f"“{self.query_text}” is not in the paper")
        line = Text(" · ".join(parts), end="")
        if self.note and (self.passage is None or not self.passage.exact):
            line.stylize("bold yellow", 0, len(self.note))
        return line

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Page keys only once the paper is shown, and not while the input is open (it edits)."""
        if action in ("page", "ask", "match"):
            shown = self.paper is not None and not self.paper.notice and self.asking is None
            if action == "match":
                return shown and bool(self.matches)
            return shown
        return True

    def action_page(self, step: int) -> None:
        assert self.paper is not None
        target = self.page + step
        if 1 <= target <= self.paper.page_count:
            self.page = target
            self.show_page()

    def action_ask(self, what: str) -> None:
        self.asking = what
        box = self.query_one("#paper-input", Input)
        box.placeholder = (
            f"Page (1-{self.paper.page_count if self.paper else 1}), Enter to go, Esc to cancel"
            if what == "page"
            else "Find in the paper, Enter to search, Esc to cancel"
        )
        box.value = "" if what == "page" else self.query_text
        box.add_class("-open")
        box.focus()
        self.refresh_bindings()

    def close_input(self) -> None:
        self.asking = None
        box = self.query_one("#paper-input", Input)
        box.remove_class("-open")
        self.query_one("#paper-page", VerticalScroll).focus()
        self.refresh_bindings()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        what, value = self.asking, event.value.strip()
        self.close_input()
        if what == "page":
            self.go_to(value)
        elif what == "find":
            self.find(value)

    def go_to(self, value: str) -> None:
        assert self.paper is not None
        if not value.isdigit() or not 1 <= int(value) <= self.paper.page_count:
            self.app.notify(f"Type a page number from 1 to {self.paper.page_count}.", severity="warning")
            return
        self.page = int(value)
        self.show_page()

    def find(self, query: str) -> None:
        assert self.paper is not None
        self.query_text = query
        self.matches = self.paper.find(query) if query else []
        # The first match at or after the page shown, so a search goes forward from where one reads.
        after = [i for i, (page, _s, _e) in enumerate(self.matches) if page >= self.page]
        self.match_index = (after[0] if after else 0) if self.matches else -1
        self.show_match()

    def action_match(self, step: int) -> None:
        if self.matches:
            self.match_index = (self.match_index + step) % len(self.matches)
            self.show_match()

    def show_match(self) -> None:
        if not self.matches:
            self.show_page(focus_at=0)
            return
        page, start, _end = self.matches[self.match_index]
        self.page = page
        self.show_page(focus_at=start)

    def action_close(self) -> None:
        if self.asking is not None:
            self.close_input()
        else:
            self.dismiss(None)


def paper_of(app: App[Any]) -> tuple[Path | None, Path]:
    """The chat's PDF and the home's cache, from the app's workspace."""
    workspace = app.ctx.workspace  # type: ignore[attr-defined]
    pdf = workspace.session.pdf_path
    return (Path(pdf) if pdf else None), workspace.paths.cache


def open_passage(
    app: App[Any],
    quotation: str | None = None,
    *,
    page: int | None = None,
    pdf: Path | None = None,
    cache_dir: Path | None = None,
) -> None:
    """Open the paper view at `quotation` (located in the paper: highlighted, or its closest
    passage), else at `page`. The PDF is the chat's unless `pdf` and `cache_dir` are given."""
    if cache_dir is None:
        pdf, cache_dir = paper_of(app)
    keymap = app.ctx.keymap  # type: ignore[attr-defined]
    app.push_screen(PaperScreen(pdf, cache_dir, quotation, page, pick_key=shown_key("pdf.select", keymap)))
