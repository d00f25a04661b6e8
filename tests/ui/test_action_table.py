"""One action table (issue 31 §3): the footer, the palette, the help screen and the mode buttons
name each action's key from it, against Configurations/Keymap.json as the app read it at start."""

from __future__ import annotations

import html
import json
import operator

from textual.widgets import Label, Static

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.ui.bindings import ACTIONS
from ensemble_tui.ui.screens.help import COMPARE_GROUP, PAPER_GROUP, HelpScreen
from ensemble_tui.ui.screens.paper import PaperScreen, open_passage
from ensemble_tui.ui.screens.style_picker import StylePicker
from ensemble_tui.ui.widgets.action_bar import ModeButton, button_id
from tests.ui.conftest import SIZE, rendered_text, settle, show_pane, type_text, wait_until
from tests.ui.test_paper_view import note as paper_note


def help_rows(app) -> list[str]:
    """The help screen's rows (and group titles), one line each."""
    assert isinstance(app.screen, HelpScreen)
    return [line for w in app.screen.query(Static) for line in rendered_text(w.content, width=200).splitlines()]


def palette_help(app, title: str) -> str:
    (command,) = [c for c in app.get_system_commands(app.screen) if c.title == title]
    return command.help


async def test_a_remapped_key_shows_in_the_palette_the_help_the_footer_and_the_button(workspace, chatty, make_app):
    # Ctrl+B and Ctrl+S: keys the question box leaves free (it binds Ctrl+Y to redo, and would win)
    (workspace.paths.configurations / "Keymap.json").write_text(
        json.dumps({"mode.all": "ctrl+b", "history.open": "ctrl+s", "style.debate": "alt+d", "pdf.select": "alt+o"})
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        # the empty chat's welcome names the keys as the keymap does (it named the defaults)
        welcome = app.main.chat.log_view.empty_hint
        assert "Ctrl+B All" in welcome and "F5 All" not in welcome
        assert "F6, F7, F8 and Alt+D choose how several models deliberate" in welcome
        assert str(app.screen.query_one(".empty-hint", Static).content) == welcome  # as shown
        assert "Attachments (Alt+O)" in welcome
        await show_pane(pilot, "attachments")  # the picker's key in the pane's hint and the paper view
        assert "(or Alt+O)" in str(app.screen.query_one("#attachments-pane .pane-hint", Static).content)
        open_passage(app)
        await wait_until(pilot, lambda: isinstance(app.screen, PaperScreen) and bool(paper_note(app)))
        assert "(Alt+O picks one)" in paper_note(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, PaperScreen))
        await show_pane(pilot, "chat")
        assert "(Ctrl+B)" in palette_help(app, "Send with All") and "F5" not in palette_help(app, "Send with All")
        assert "(Ctrl+S)" in palette_help(app, "Show history") and "Ctrl+G" not in palette_help(app, "Show history")
        # The footer's keys: mode keys are not drawn there (the buttons above it show the modes,
        # issue 25 §4) but are bound at the new key; History is drawn with its new key.
        bound = {key: active.binding.id for key, active in app.screen.active_bindings.items()}
        assert bound.get("ctrl+b") == "mode.all" and "f5" not in bound
        assert bound.get("ctrl+s") == "history.open" and "ctrl+g" not in bound
        footer = html.unescape(app.export_screenshot()).replace("\u00a0", " ")
        assert "^s" in footer and "^g" not in footer
        button = app.query_one(f"#{button_id(Mode.ALL)}", ModeButton)
        assert "Ctrl+B" in str(button.tooltip) and "F5" not in str(button.tooltip)

        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        rows = help_rows(app)
        (send_all,) = [row for row in rows if "Send with All" in row]
        assert "Ctrl+B" in send_all and "F5" not in send_all
        (history,) = [row for row in rows if "Reopen an earlier chat" in row]
        assert "Ctrl+S" in history
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen))

        await pilot.click("#style-button")  # the style picker names them so too
        await wait_until(pilot, lambda: isinstance(app.screen, StylePicker))
        assert "Enter or F6, F7, F8 or Alt+D picks" in str(app.screen.query_one(".dialog-title", Label).content)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, StylePicker))

        await type_text(pilot, "Sent with the new key")
        await pilot.press("ctrl+b")
        await settle(pilot)
        assert workspace.session.last_mode == "all"
        assert all(provider.calls for provider in chatty.values())


async def test_the_help_lists_each_action_once_and_compares_own_keys(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        rows = help_rows(app)
        assert sum(row.lstrip().startswith("Ctrl+Q") for row in rows) == 1  # it was listed twice
        groups = app.screen.groups
        compare = {row.keys: row.what for row in groups[COMPARE_GROUP]}
        for key in ("r", "c", "p", "l"):
            assert key in compare, key  # as the footer writes it: a letter alone keeps its case
        assert "another style" in compare["r"]
        assert COMPARE_GROUP in rows
        paper = {row.keys: row.what for row in groups[PAPER_GROUP]}
        assert (paper["n"], paper["N"]) == ("Next match", "Previous match")  # both read "N" before


async def test_every_action_of_the_table_names_what_does_it(workspace, chatty, make_app):
    """The table points at the collaborator's method that does the work: each must exist."""
    app = make_app()
    async with app.run_test(size=SIZE):
        for action in ACTIONS:
            assert callable(operator.attrgetter(action.does)(app.main)), action.id
        assert len({action.id for action in ACTIONS}) == len(ACTIONS)
