"""Issue 32 §3, see the passage: a quote mark opens the paper view at the quoted words (✓), or at
the closest passage (✗); the view pages, goes to a page, finds; without a PDF or with a scan it
says so in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from ensemble_tui.ui.chat_log.quote_marks import MARK_META
from ensemble_tui.ui.screens.paper import NO_PDF, NOTHING_CLOSE, PaperScreen, closest_label, open_passage
from ensemble_tui.ui.screens.report import QUOTE_META
from tests.core.pdf_factory import scan_pdf
from tests.core.test_quotes import ACROSS_LINE, PAGE_TWO
from tests.ui.conftest import SIZE, settle, type_text, wait_until
from tests.ui.test_snapshots import SIZES, snapshot_app  # noqa: F401  (the fixture)

MISQUOTED = ACROSS_LINE.replace("87", "78")
REPLY = f'The paper says "{ACROSS_LINE}" and, later, "{PAGE_TWO}" It never says "{MISQUOTED}".'


def highlighted(screen: PaperScreen) -> str:
    """The page text under the quote's highlight, as shown."""
    assert screen.passage is not None and screen.paper is not None
    return screen.paper.pages[screen.page - 1][screen.passage.start : screen.passage.end]


async def paper_screen(pilot: Pilot) -> PaperScreen:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, PaperScreen) and pilot.app.screen.paper is not None)
    screen = pilot.app.screen
    assert isinstance(screen, PaperScreen)
    await settle(pilot)
    return screen


def note(app) -> str:
    """The paper view's one line under its title ("" before it is composed)."""
    found = app.screen.query("#paper-note")
    return str(found.first().render()) if found else ""


def mark_at(app, number: int, key: str = MARK_META) -> tuple[int, int] | None:
    """Where the `number`-th quote mark of the screen is, found by the meta its cells carry."""
    width, height = app.size
    for y in range(height):
        for x in range(width):
            if app.screen.get_style_at(x, y).meta.get(key) == number:
                return x, y
    return None


def marks_on_screen(app, key: str) -> dict[int, tuple[int, int]]:
    """Where each quote mark of the screen first is, by its number, in one pass over the cells."""
    found: dict[int, tuple[int, int]] = {}
    width, height = app.size
    for y in range(height):
        for x in range(width):
            number = app.screen.get_style_at(x, y).meta.get(key)
            if number is not None:
                found.setdefault(number, (x, y))
    return found


async def click_mark(pilot: Pilot, number: int, key: str = MARK_META, page_down: int = 0) -> None:
    """Click the `number`-th quote mark, paging down (at most `page_down` times) to find it."""
    for _ in range(page_down + 1):
        if (offset := mark_at(pilot.app, number, key)) is not None:
            await pilot.click(offset=offset)
            return
        await pilot.press("pagedown")
        await settle(pilot)
    raise AssertionError(f"no quote mark {number} on screen")


async def test_a_found_mark_opens_its_page_with_the_quoted_words_highlighted(workspace, chatty, make_app, sample_pdf):
    """And a missing mark opens the closest passage, labelled so; the message cursor's `o` opens
    a reply's first quote; so do the marks of Compare's
    Proposals tab (a click on a proposal's ✓, and `o` on the focused column) and of the run
    report. One app and one turn for the three screens (they were three tests, each asking the
    same question of the same scripted reply)."""
    workspace.select_pdf(sample_pdf)
    chatty["ChatGPT"].scripts["proposer"] = [REPLY]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "What does the paper report?")
        await pilot.press("f12")
        await settle(pilot)
        await click_mark(pilot, 1)  # the second quote: "✓ p. 2"
        screen = await paper_screen(pilot)
        assert screen.page == 2 and screen.passage is not None and screen.passage.exact
        assert " ".join(highlighted(screen).split()) == PAGE_TWO
        assert "p. 2 of 2" in str(screen.title_line())
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, PaperScreen)  # back where the user was

        await click_mark(pilot, 2)  # "✗ not in the paper": 78 for 87
        screen = await paper_screen(pilot)
        assert screen.passage is not None and not screen.passage.exact
        assert screen.page == 1 and " ".join(highlighted(screen).split()) == ACROSS_LINE
        assert closest_label(1) in str(screen.note_line())
        assert closest_label(1) == "not found word for word: the closest passage (p. 1)"
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, PaperScreen)

        # the message cursor's key: the reply's first checked quote (Alt+Up puts the cursor on the reply)
        await pilot.press("alt+up", "o")
        screen = await paper_screen(pilot)
        assert screen.page == 1 and screen.passage is not None and screen.passage.exact
        assert " ".join(highlighted(screen).split()) == ACROSS_LINE
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, PaperScreen) and app.main.chat.input.text == ""  # no "o" typed
        await pilot.press("up", "o")  # on the question: nothing to open, and said so
        await settle(pilot)
        assert not isinstance(app.screen, PaperScreen)
        assert app.main.chat.status.text.startswith("No checked quote in this message")
        await pilot.press("escape")

        # Compare's Proposals tab
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "CompareScreen")
        compare = app.screen
        await wait_until(pilot, lambda: bool(getattr(compare, "checks", None)))
        await settle(pilot)
        await click_mark(pilot, 0)
        screen = await paper_screen(pilot)
        assert screen.page == 1 and " ".join(highlighted(screen).split()) == ACROSS_LINE
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is compare
        await pilot.press("o")
        screen = await paper_screen(pilot)
        assert screen.page == 1 and screen.passage is not None and screen.passage.exact
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is compare)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main)

        # the run report
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ReportScreen")
        await settle(pilot)
        await click_mark(pilot, 1, QUOTE_META, page_down=6)  # Quote checks: the second quote, on page 2
        screen = await paper_screen(pilot)
        assert screen.page == 2 and " ".join(highlighted(screen).split()) == PAGE_TWO
        await pilot.press("escape")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ReportScreen")
        await pilot.press("o")
        screen = await paper_screen(pilot)
        assert screen.page == 1 and " ".join(highlighted(screen).split()) == ACROSS_LINE


async def test_nothing_close_and_no_pdf_and_a_scan_each_say_so_in_one_line(workspace, make_app, sample_pdf, tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        open_passage(app, ACROSS_LINE)  # no PDF in this chat
        await settle(pilot)
        assert isinstance(app.screen, PaperScreen)
        assert note(app) == NO_PDF
        await pilot.press("escape")
        open_passage(app, "no such words are anywhere in this little paper at all", pdf=sample_pdf, cache_dir=tmp_path)
        screen = await paper_screen(pilot)
        assert screen.passage is None and str(screen.note_line()) == NOTHING_CLOSE
        await pilot.press("escape")
        scan = scan_pdf(tmp_path / "scan.pdf")
        open_passage(app, ACROSS_LINE, pdf=scan, cache_dir=tmp_path)
        await wait_until(pilot, lambda: "no text layer" in note(app))


async def test_the_palette_opens_the_chats_paper_at_its_first_page_to_read(workspace, make_app, sample_pdf):
    """Not only from a quote mark: a researcher opens the paper itself to read or search it."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        (read,) = [c for c in app.get_system_commands(app.screen) if c.title == "Read the paper"]
        read.callback()  # no PDF in this chat yet
        await settle(pilot)
        assert isinstance(app.screen, PaperScreen) and note(app) == NO_PDF
        await pilot.press("escape")
        app.main.pdf_actions.select(sample_pdf)
        read.callback()
        screen = await paper_screen(pilot)
        assert screen.pdf == sample_pdf.resolve() and str(workspace.session.pdf_path) == str(screen.pdf)
        assert (screen.page, screen.passage, note(app)) == (1, None, "")
        assert screen.paper is not None and "Introduction" in str(screen.query_one("#paper-body").content)


async def test_pages_turn_go_to_a_page_and_find_with_next_and_previous_match(make_app, sample_pdf, tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        open_passage(app, pdf=sample_pdf, cache_dir=tmp_path)
        screen = await paper_screen(pilot)
        assert screen.page == 1
        await pilot.press("right")
        assert screen.page == 2
        await pilot.press("left", "g", "2", "enter")
        assert screen.page == 2
        await pilot.press("g", "1", "enter", "slash", *"resynthesis", "enter")
        await settle(pilot)
        assert [page for page, _s, _e in screen.matches] == [1, 1, 2, 2]
        assert "match 1 of 4" in str(screen.note_line())
        await pilot.press("N")  # previous, from the first: the last
        assert screen.page == 2 and "match 4 of 4" in str(screen.note_line())
        await pilot.press("n")
        assert screen.page == 1 and "match 1 of 4" in str(screen.note_line())
        page, start, end = screen.matches[0]
        assert screen.paper is not None and screen.paper.pages[page - 1][start:end].lower() == "resynthesis"


def test_located_passages_are_ranges_of_the_shown_page(sample_pdf: Path, tmp_path: Path):
    """The JSON export's range: `start:end` of the page text the paper view shows."""
    from ensemble_tui.core.paper.passage import read_paper_text

    paper = read_paper_text(sample_pdf, tmp_path)
    found = paper.locate(PAGE_TWO)
    assert found is not None and found.exact and found.page == 2
    assert " ".join(paper.pages[1][found.start : found.end].split()) == PAGE_TWO
    assert paper.locate("completely unrelated words about the weather in the mountains today") is None


@pytest.mark.parametrize("size", SIZES)
def test_paper_view_layout_with_a_highlighted_quote(snap_compare, snapshot_app, sample_pdf, tmp_path, size):  # noqa: F811
    """The paper view opened at a ✓ quote: its page, the words highlighted, the keys in the footer."""

    async def open_view(pilot: Pilot) -> None:
        await pilot.pause()  # let start-up finish (see test_snapshots.show)
        open_passage(pilot.app, ACROSS_LINE, pdf=sample_pdf, cache_dir=tmp_path / "view-cache")
        await paper_screen(pilot)
        await pilot.pause()

    assert snap_compare(snapshot_app, terminal_size=size, run_before=open_view)


def test_only_the_apps_own_mark_text_is_clickable():
    """A reply that writes the invisible mark delimiters itself gets no clickable text from them."""
    from rich.console import Console

    from ensemble_tui.ui.chat_log.quote_marks import MARK_END, MARK_START, marked, with_marks
    from ensemble_tui.ui.chat_log.rendering import markdown

    text = f'Forged {MARK_START}*✓ p. 9*{MARK_END} here, then "{ACROSS_LINE}".'
    start = text.index('"')
    checks = {
        "notice": None,
        "quotes": [{"text": ACROSS_LINE, "start": start, "end": len(text) - 1, "page": 1}],
        "references": [],
    }
    shown, _summary = marked(text, checks)
    console = Console(width=200, record=True)
    segments = list(console.render(with_marks(markdown(shown), checks)))
    clickable = "".join(s.text for s in segments if s.style is not None and s.style.meta.get(MARK_META) is not None)
    assert clickable.strip() == "✓ p. 1"
    assert all(MARK_START not in s.text and MARK_END not in s.text for s in segments)


async def test_a_claims_mark_opens_its_rows_words_and_a_misquote_the_closest(workspace, make_app, sample_pdf):
    """The Claims tab: a click on Claude's ✗ (92 for 87) opens the closest passage on page 1."""
    from ensemble_tui.ui.screens.claims import EVIDENCE_META
    from tests.ui.test_claims_snapshots import record_with_map

    workspace.select_pdf(sample_pdf)
    workspace.archive.save_turn(record_with_map(workspace.session.id))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f10")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "CompareScreen")
        await settle(pilot)
        marks = marks_on_screen(app, EVIDENCE_META)  # one look at every cell, not one per row's mark
        assert marks.get(1) is not None  # the disputed claim is first: ChatGPT ✓, then Claude ✗
        await pilot.click(offset=marks[1])
        screen = await paper_screen(pilot)
        assert screen.passage is not None and not screen.passage.exact and screen.page == 1
        assert "answered 87 correctly" in highlighted(screen)
