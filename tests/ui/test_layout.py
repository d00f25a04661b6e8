"""The layout at 80x24 (and 120x40): rows for the chat, the growing question box, one row of
buttons, the status line's priorities and the footer's keys, measured on the screen."""

from __future__ import annotations

import html
import re

import pytest
from rich.text import Text
from textual.widgets import Footer

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.ui.turns.active_turn import ActiveTurn
from ensemble_tui.ui.widgets.action_bar import ModeButton
from ensemble_tui.ui.widgets.status_bar import LineParts, plan_line
from tests.ui.conftest import settle, type_text

SMALL = (80, 24)
LARGE = (120, 40)


def line_count(app) -> int:
    return app.main.chat.input.wrapped_document.height


async def test_the_question_box_grows_with_its_text_up_to_a_third_of_the_screen(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        box = app.main.chat.input
        assert box.region.height == 3  # one line between its borders
        await type_text(pilot, "first line\nsecond line\nthird line")
        await pilot.pause()
        assert box.region.height == 5
        assert app.main.chat.log_view.region.height == 13  # the chat gave the box its two rows
        await type_text(pilot, "\nmore" * 20)
        await pilot.pause()
        assert box.region.height in (7, 8)  # the limit: about a third of the screen
        assert line_count(app) > box.region.height  # the rest scrolls inside the box
        assert app.main.chat.log_view.region.height >= 8
        box.take_text()
        await pilot.pause()
        assert box.region.height == 3  # back to one line once sent


async def test_a_long_line_wraps_and_grows_the_box(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await type_text(pilot, " ".join(["word"] * 40))  # ~200 characters: three lines at 80 columns
        await pilot.pause()
        assert app.main.chat.input.region.height == 2 + line_count(app) == 5


# ----- the status line ---------------------------------------------------------------------


def parts(*, progress="⠋ Collecting replies… (1/3)", names="  answered: ChatGPT  waiting: Claude, Gemini"):
    return LineParts(
        progress=Text(progress),
        suffix=Text("  12s"),
        hint=Text(" · Esc cancels"),
        names=Text(names),
        style=(Text("Style Aggregator (multi-model turns only)"), Text("Style Aggregator")),
        cost=(Text("Session cost $0.1484"), Text("$0.1484")),
    )


def test_a_wide_line_shows_everything():
    plan = plan_line(parts(), 200, 3, 3)
    assert plan.status.plain.endswith("answered: ChatGPT  waiting: Claude, Gemini · Esc cancels")
    assert plan.style is not None and "multi-model" in plan.style.plain
    assert plan.cost is not None and plan.cost.plain == "Session cost $0.1484"


def test_at_80_columns_the_style_goes_first_and_progress_stays():
    plan = plan_line(parts(), 78, 3, 3)
    assert plan.style is None
    assert plan.cost is not None and "$0.1484" in plan.cost.plain
    status = plan.status.plain
    assert status.startswith("⠋ Collecting replies… (1/3)  12s") and status.endswith("· Esc cancels")
    assert plan.status.cell_len + 3 + plan.cost.cell_len <= 78


def test_on_a_very_narrow_line_the_cost_goes_before_the_progress():
    plan = plan_line(parts(names=""), 48, 3, 3)
    assert plan.style is None and plan.cost is None
    assert plan.status.plain == "⠋ Collecting replies… (1/3)  12s · Esc cancels"


def test_the_phase_is_cut_before_the_elapsed_time_or_how_to_cancel():
    plan = plan_line(parts(progress="⠋ " + "Resynthesizing with every proposal " * 3), 60, 3, 3)
    assert plan.status.cell_len == 60
    assert plan.status.plain.endswith("…  12s · Esc cancels")


async def test_a_runs_first_line_leaves_the_style_in_place_until_the_turns_first_news(workspace, chatty, make_app):
    """Issue 36 (row 3): the style gives its room to the run line when the turn's first news
    comes (with the question's own layout), not at Enter; meanwhile the line still ends with how
    to cancel, its phase cut if need be."""
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        status = app.main.chat.status
        status.follow(ActiveTurn(1, Mode.ALL, "Question"), hint="Esc cancels")
        status.show("Starting All with the paper and every proposer of the chat…")  # no room for the style
        await pilot.pause()
        assert status.shown.style is not None  # still where it was
        assert status.shown.status.plain.endswith("Esc cancels")
        assert status.shown.status.cell_len <= status.status_room
        status.update_status("Collecting replies… (1/3)", ["ChatGPT"], ["Claude", "Gemini"])
        await pilot.pause()
        assert status.shown.style is None  # the style went first
        assert "(1/3)" in status.shown.status.plain


async def test_the_status_line_at_80_columns_during_a_run(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        status = app.main.chat.status
        status.follow(ActiveTurn(1, Mode.ALL, "Question"), hint="Esc cancels")
        status.show("Starting All…")
        status.update_status("Collecting replies… (1/3)", ["ChatGPT"], ["Claude", "Gemini"])
        status.set_retry("Claude retries in 4s")
        status.set_cost(0.25)
        await pilot.pause()
        shown = status.shown.status.plain
        assert "(1/3)" in shown and "0s" in shown and "Claude retries in 4s" in shown and shown.endswith("Esc cancels")
        assert status.shown.style is None  # the style went first
        assert status.shown.status.cell_len <= status.status_room
        status.show("Reply complete (All, 5s).")
        status.follow(None)
        await pilot.pause()
        assert status.shown.style is not None  # room again once the run is over
        assert "Style Aggregator" in status.shown.style.plain


# ----- the footer ---------------------------------------------------------------------------


def footer_line(app) -> str:
    """The footer's row of the screen on top, as drawn (from the screenshot: each text run names its line)."""
    rows: dict[int, str] = {}
    for line, text in re.findall(
        r'<text[^>]*clip-path="url\(#[^)]*-line-(\d+)\)"[^>]*>(.*?)</text>', app.export_screenshot()
    ):
        rows[int(line)] = rows.get(int(line), "") + html.unescape(text)
    return rows.get(app.screen.query_one(Footer).region.y, "").replace("\u00a0", " ")


# ----- the first screen at each size ----------------------------------------------------------
# One app per size, its first screen checked for each thing below (each check named for what it
# checks): starting an app costs ~0.5 s of CPU, and these checks started fourteen for six sizes.


def the_chat_keeps_at_least_14_rows(app, size) -> None:
    assert app.main.chat.input.text == ""
    assert app.main.chat.log_view.region.height >= 14


def the_placeholder_fits_on_the_first_line(app, size) -> None:
    box = app.main.chat.input
    assert len(str(box.placeholder)) <= box.content_size.width
    assert "Enter sends" in str(box.placeholder)


def the_mode_buttons_take_one_row_and_no_label_wraps(app, size) -> None:
    buttons = list(app.query(ModeButton))
    style = app.main.chat.actions.style_button
    assert {button.region.y for button in [*buttons, style]} == {buttons[0].region.y}
    assert all(button.region.height == 1 for button in buttons)
    for button in buttons:
        assert button.content_size.width >= len(str(button.label)), button.label
    assert max(button.region.right for button in [*buttons, style]) <= size[0]


def chatgpt_and_gemini_never_wraps(app, size) -> None:
    both = app.query_one("#mode-chatgpt-gemini", ModeButton)
    assert both.content_size.width >= len("ChatGPT & Gemini")
    assert both.content_size.height == 1
    assert app.main.chat.actions.style_button.region.right <= size[0]


def a_tall_screen_keeps_the_bordered_buttons(app, size) -> None:
    assert all(button.region.height == 3 for button in app.query(ModeButton))
    assert app.main.chat.input.region.height == 4  # two lines to start with
    assert app.main.chat.log_view.region.height >= 25


def the_footer_shows_the_keys_seen_nowhere_else_whole(app, size) -> None:
    line = footer_line(app)
    for key in ("^g History", "^f Compare", "^r Report", "^q Quit", "^p palette"):
        assert key in line, (key, line)
    for label in ("ChatGPT", "Claude", "Gemini", "All"):  # the mode buttons above show these
        assert label not in line


def a_narrow_footer_shows_whole_keys_and_the_palette_key(app, size) -> None:
    """Issue 35: at 60x20 the footer ended `^f ▏^p paletteH`, a key cut and a stray letter of
    the next. Keys that do not fit are left out from the right; Quit, Help and the palette stay."""
    line = footer_line(app).rstrip()
    assert line.endswith("▏^p palette"), line
    assert "^q Quit" in line and "f1 Help" in line
    keys = ["^q Quit", "f1 Help", "^n New chat", "^o PDF", "^r Report", "^f Compare", "^g History"]
    shown = line.removesuffix("▏^p palette")  # the drawn text: the spaces between keys are margins
    assert any(shown == "".join(keys[:count]) for count in range(2, len(keys) + 1)), line
    assert len(line) <= size[0]


FIRST_SCREEN_CHECKS = {
    SMALL: (
        the_chat_keeps_at_least_14_rows,
        the_placeholder_fits_on_the_first_line,
        the_mode_buttons_take_one_row_and_no_label_wraps,
        the_footer_shows_the_keys_seen_nowhere_else_whole,
        a_narrow_footer_shows_whole_keys_and_the_palette_key,
    ),
    (60, 20): (a_narrow_footer_shows_whole_keys_and_the_palette_key,),
    (50, 20): (a_narrow_footer_shows_whole_keys_and_the_palette_key,),
    (80, 40): (chatgpt_and_gemini_never_wraps,),
    (100, 30): (chatgpt_and_gemini_never_wraps, the_footer_shows_the_keys_seen_nowhere_else_whole),
    LARGE: (
        the_placeholder_fits_on_the_first_line,
        chatgpt_and_gemini_never_wraps,
        a_tall_screen_keeps_the_bordered_buttons,
        the_footer_shows_the_keys_seen_nowhere_else_whole,
    ),
}


@pytest.mark.parametrize("size", list(FIRST_SCREEN_CHECKS), ids=lambda size: f"{size[0]}x{size[1]}")
async def test_the_first_screen_at_each_size(workspace, chatty, make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for check in FIRST_SCREEN_CHECKS[size]:
            check(app, size)


async def test_a_turn_leaves_the_footer_as_drawn_and_a_remapped_key_redraws_it(workspace, chatty, make_app):
    """Textual's Footer rebuilt its keys (and laid out the whole screen twice) whenever the app
    refreshed its bindings, twice a turn, though no key it shows changes with a turn (issue 36)."""
    app = make_app()
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        footer = app.query_one(Footer)
        keys = list(footer.children)
        line = footer_line(app)
        await type_text(pilot, "Why?")
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.chat.log_view.items[-1].role == "assistant"
        assert list(footer.children) == keys and all(a is b for a, b in zip(footer.children, keys, strict=True))
        assert footer_line(app) == line
        app.set_keymap({"history.open": "ctrl+s"})  # a key it shows changes: the footer follows
        await settle(pilot)
        assert "^s History" in footer_line(app) and "^g History" not in footer_line(app)


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_the_first_layout_has_the_footer_keys_and_the_size_classes(
    workspace, chatty, make_app, monkeypatch, size
):
    """Start-up (bench row 5, issue 36): the first frame is the complete one. Textual's Footer
    composed its keys after a refresh, and Textual set the screen's size classes (the buttons'
    sizes) on its first Resize, after the first layout: each cost the whole screen another
    restyle or layout pass, and the footer's keys came a few frames after the rest."""
    from ensemble_tui.ui.widgets.steady_footer import SteadyFooter

    classes: list[set[str]] = []
    keys: list[int] = []

    def on_mount(footer: SteadyFooter) -> None:  # composed with the screen, before its first layout
        classes.append(set(footer.screen.classes))

    def on_resize(footer: SteadyFooter, event: object) -> None:  # the footer's first layout
        keys.append(len(footer.children))

    monkeypatch.setattr(SteadyFooter, "on_mount", on_mount, raising=False)
    monkeypatch.setattr(SteadyFooter, "on_resize", on_resize, raising=False)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
    assert keys[0] >= 5  # History, Compare, Report, Quit, the palette: drawn by the first layout
    assert classes[0] >= ({"-narrow", "-short"} if size == SMALL else {"-wide", "-tall"})


# ----- a long reply --------------------------------------------------------------------------

LONG_REPLY = "\n".join(
    ["Attention lets every token weigh every other token.", ""]
    + [f"- point {n}: one short line of the explanation" for n in range(1, 39)]
)


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_after_an_all_turn_with_a_long_reply_its_first_line_is_on_screen(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["aggregator"] = ["FINAL REPLY:\n" + LONG_REPLY]
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await type_text(pilot, "What is attention?")
        await pilot.press("f5")
        await settle(pilot)
        await pilot.pause()
        assert workspace.session.history[-1].text.startswith("Attention lets every token")
        shown = screen_text(app)
        assert "Attention lets every token weigh every other token." in shown
        assert app.main.chat.log_view.region.height >= 14
        assert app.main.chat.log_view.scroll_y < app.main.chat.log_view.max_scroll_y  # the rest is below


async def test_past_its_limit_the_box_keeps_the_new_last_line_in_view(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        for word in ("one", "two", "three", "four", "five", "six", "seven"):
            await pilot.press(*word, "ctrl+j")
        await pilot.pause()
        box = app.main.chat.input
        assert box.text.endswith("seven\n") and box.cursor_location == (7, 0)
        assert box.scroll_offset.y == box.max_scroll_y > 0  # the new empty line is in view
        assert "three" not in screen_text(app)
