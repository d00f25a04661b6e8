"""The PDF picker's flows and the dialogs' fit, at 80x24 and 120x40."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import DataTable, OptionList, Select
from textual_fspicker.parts import DirectoryNavigation

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.ui.chat_log.fitted_markdown import FittedMarkdown, is_figure
from ensemble_tui.ui.chat_log.rendering import markdown
from ensemble_tui.ui.screens.export_picker import ExportPicker
from ensemble_tui.ui.screens.history import HistoryScreen
from ensemble_tui.ui.screens.pdf_file_open import HINT, PdfPicker
from ensemble_tui.ui.screens.report import ReportScreen
from ensemble_tui.ui.screens.style_picker import StylePicker
from tests.ui.conftest import show_pane, wait_until
from tests.ui.test_snapshots import vote_record

SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def papers(tmp_path: Path, sample_pdf: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with a subfolder, a PDF and a text file named like a PDF."""
    folder = tmp_path / "papers"
    (folder / "drafts").mkdir(parents=True)
    shutil.copyfile(sample_pdf, folder / "attention.pdf")
    (folder / "notes.pdf").write_text("not a pdf at all")
    monkeypatch.chdir(folder)
    return folder


async def open_picker(pilot) -> PdfPicker:
    await pilot.press("ctrl+o")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, PdfPicker))
    picker = pilot.app.screen
    listing = picker.listing
    # The folder is read in a thread; the highlight then moves to its first PDF.
    await wait_until(
        pilot, lambda: listing.highlighted is not None and listed(picker)[listing.highlighted] != "..", timeout=30
    )
    return picker


def listed(picker: PdfPicker) -> list[str]:
    listing = picker.listing
    return [listing.get_option_at_index(index).location.name for index in range(listing.option_count)]


@pytest.mark.parametrize("size", SIZES)
async def test_the_picker_lists_the_folder_and_one_enter_chooses_a_pdf(workspace, chatty, make_app, papers, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        picker = await open_picker(pilot)
        listing = picker.query_one(DirectoryNavigation)
        assert listing.region.height >= 6 and listing.region.bottom <= size[1]
        names = listed(picker)
        assert "attention.pdf" in names and "drafts" in names
        assert "notes.pdf" in names  # named .pdf: listed, and refused if chosen (below)
        assert names[listing.highlighted] == "attention.pdf"  # the first PDF
        assert HINT in str(picker.query_one(".pdf-picker-hint").content)
        dialog = picker.query_one("Dialog")
        assert dialog.region.right <= size[0] and dialog.region.bottom <= size[1]
        for widget in picker.query("InputBar > *"):
            assert widget.region.height == 3  # the filter no longer drawn a letter per line
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, PdfPicker))
        assert workspace.session.pdf_path == str(papers / "attention.pdf")


async def test_a_typed_name_goes_to_the_path_box_without_tab(workspace, chatty, make_app, papers):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        picker = await open_picker(pilot)
        assert app.focused is picker.listing
        await pilot.press(*"attention.pdf")
        assert picker.path_box.value == "attention.pdf"  # the first letter too
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, PdfPicker))
        assert workspace.session.pdf_path == str(papers / "attention.pdf")


async def test_a_typed_path_from_home_is_accepted(workspace, chatty, make_app, papers, monkeypatch):
    monkeypatch.setenv("HOME", str(papers.parent))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_picker(pilot)
        await pilot.press(*"~/papers/attention.pdf", "enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, PdfPicker))
        assert workspace.session.pdf_path == str(papers / "attention.pdf")


async def test_a_missing_path_and_a_non_pdf_are_refused_in_the_dialog(workspace, chatty, make_app, papers):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        picker = await open_picker(pilot)
        await pilot.press(*"atention.pdf", "enter")
        await pilot.pause()
        assert app.screen is picker
        message = picker.query_one("#pdf-picker-message")
        assert "Nothing at" in picker.message and "atention.pdf" in picker.message
        assert message.display and message.region.height >= 1 and message.region.right <= 80
        await pilot.press("backspace")  # editing clears the message
        assert picker.message == ""
        picker.path_box.value = "notes.pdf"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is picker
        assert "notes.pdf is not a PDF" in picker.message
        assert workspace.session.pdf_path is None
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, PdfPicker))


async def test_enter_on_a_folder_opens_it(workspace, chatty, make_app, papers):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        picker = await open_picker(pilot)
        assert listed(picker)[picker.listing.highlighted - 1] == "drafts"  # folders come first
        await pilot.press("up")
        await pilot.pause()
        assert listed(picker)[picker.listing.highlighted] == "drafts"  # the arrow key is obeyed
        await pilot.press("enter")
        await wait_until(pilot, lambda: picker.listing.location == papers / "drafts")
        assert app.screen is picker


@pytest.mark.parametrize("pane", ["chat", "claude", "settings"])
async def test_after_the_picker_the_pane_open_before_is_shown(workspace, chatty, make_app, papers, pane):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await show_pane(pilot, pane)
        await open_picker(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, PdfPicker))
        await pilot.pause()
        assert app.main.tabs.active == pane
        assert workspace.session.pdf_path == str(papers / "attention.pdf")


# ----- the other dialogs at 80x24 ------------------------------------------------------------


def inside(widget, size: tuple[int, int]) -> bool:
    region = widget.region
    return region.x >= 0 and region.y >= 0 and region.right <= size[0] and region.bottom <= size[1]


async def test_history_fits_and_shows_the_whole_cost(workspace, chatty, make_app):
    workspace.session.id = "2026-01-02_09-30-00"
    app = make_app()
    long_question = "Why does the proposed sparse routing beat the dense baseline on every benchmark in table 3?"
    async with app.run_test(size=(80, 24)) as pilot:
        from ensemble_tui.core.store.archive import SessionSummary

        app.push_screen(HistoryScreen([SessionSummary("2026-01-02_09-30-00", long_question, 12, 1.2345)], "x"))
        await pilot.pause()
        assert inside(app.screen.query_one(".dialog"), (80, 24))
        table = app.screen.query_one(DataTable)
        assert sum(column.get_render_width(table) for column in table.columns.values()) <= table.content_size.width
        assert str(table.get_cell_at((0, 3))) == "$1.23"
        assert str(table.get_cell_at((0, 1))).endswith("…")


async def test_the_report_fits_with_whole_costs(workspace, chatty, make_app):
    workspace.archive.save_turn(vote_record(workspace.session.id))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReportScreen) and app.screen.query(".report-section"))
        await pilot.pause()
        body = app.screen.query_one("#report-body")
        assert body.max_scroll_x == 0  # nothing wider than the screen
        seen = []
        for _page in range(20):  # page through the report, reading the screen
            seen.append("\n".join(strip.text for strip in app.screen._compositor.render_strips()))
            if body.scroll_y >= body.max_scroll_y:
                break
            body.scroll_page_down(animate=False)
            await pilot.pause()
        shown = "\n".join(seen)
        for cost in ("$0.0040", "$0.0084", "$0.0041", "$0.0085"):
            assert cost in shown
        assert "$0.00…" not in shown


def test_report_tables_keep_figures_whole_at_74_columns():
    rows = "\n".join(
        f"| {provider} | {model} | {role} | 1 | 4.20 s | 2200 | 0 | 120 | ${cost} | ok |"
        for provider, model, role, cost in (
            ("ChatGPT", "gpt-5", "proposer", "0.0040"),
            ("Claude", "claude-sonnet-4-6", "aggregator", "0.0084"),
        )
    )
    table = "| model | id | role | try | latency | in | cached | out | cost | outcome |\n|" + "---|" * 10 + "\n" + rows
    console = Console(width=74, record=True)
    console.print(FittedMarkdown(table))
    text = console.export_text()
    assert "$0.0040" in text and "$0.0084" in text and "4.20 s" in text
    assert "…" not in text
    assert "ChatGPT" in text and "proposer" in text  # short words stay whole; the long id folds
    assert max(len(line) for line in text.splitlines()) <= 74


def test_a_table_that_fits_is_drawn_as_rich_draws_it():
    table = "| a | b |\n|---|---|\n| 1 | two |"
    wide, fitted = Console(width=80, record=True), Console(width=80, record=True)
    from rich.markdown import Markdown

    wide.print(Markdown(table))
    fitted.print(markdown(table))
    assert wide.export_text() == fitted.export_text()


@pytest.mark.parametrize("text", ["2200", "$0.0040", "4.20 s", "1.3B", "74.8%", "-3", ""])
def test_figures(text):
    assert is_figure(text)


@pytest.mark.parametrize("text", ["ok", "gpt-5", "claude-x", "proposer", "4 of 5 votes"])
def test_words(text):
    assert not is_figure(text)


async def test_settings_dropdowns_keep_their_arrow_at_80_columns(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await show_pane(pilot, "settings")
        pane = app.main.settings_pane
        selects = list(pane.query(Select))
        assert selects
        for select in selects:
            if select.display and select.parent.display:
                arrow = select.query_one("SelectCurrent .arrow")
                assert arrow.region.right <= pane.region.right, select.id
                assert arrow.region.width >= 1


@pytest.mark.parametrize(
    "make_dialog",
    [lambda: StylePicker(Style.VOTE), lambda: ExportPicker()],
    ids=["styles", "exports"],
)
async def test_the_style_and_export_lists_fit(workspace, chatty, make_app, make_dialog):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(make_dialog())
        await pilot.pause()
        dialog = app.screen.query_one(".dialog")
        assert inside(dialog, (80, 24))
        options = app.screen.query_one(OptionList)
        assert inside(options, (80, 24)) and options.max_scroll_x == 0
        assert options.max_scroll_y == 0  # every choice in view


async def test_the_picker_names_the_home_folder_and_says_when_a_folder_has_no_pdf(
    workspace, chatty, make_app, tmp_path, monkeypatch
):
    """Issue 35, polish: the header showed `~/.` and an empty folder got no line."""
    from ensemble_tui.ui.screens.pdf_file_open import NO_PDFS, FolderLine, folder_name

    assert folder_name(Path.home()) == "~" and folder_name(Path.home() / "papers") == "~/papers"
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, PdfPicker))
        picker = app.screen
        line = picker.query_one("#pdf-picker-empty")
        await wait_until(pilot, lambda: line.display)
        assert str(line.content) == NO_PDFS and "~/." not in str(picker.query_one(FolderLine).content)


async def test_the_picker_opens_on_the_working_folder_over_the_demos_paper_else_on_the_pdfs(
    workspace, chatty, make_app, papers, sample_pdf, tmp_path
):
    """The demo's paper lives inside the installed package: a user choosing their own paper
    starts where they ran the app, not in the package's folder. A PDF of their own opens its folder."""
    shipped = tmp_path / "package" / "sample.pdf"
    shipped.parent.mkdir()
    shutil.copyfile(sample_pdf, shipped)
    workspace.starting_pdf = shipped
    workspace.select_pdf(shipped)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        picker = await open_picker(pilot)
        assert picker.listing.location == papers
        await pilot.press("enter")  # attention.pdf, the working folder's first PDF
        await wait_until(pilot, lambda: not isinstance(app.screen, PdfPicker))
        own = papers / "drafts" / "own.pdf"
        shutil.copyfile(sample_pdf, own)
        app.main.pdf_actions.select(own)
        picker = await open_picker(pilot)
        assert picker.listing.location == papers / "drafts"
