"""Keys in one burst that open a dialog and then type into it (issue 35 §3): each key goes to the
widget that has the focus after the keys before it. Ctrl+O then a path left the picker's field
empty, or lost characters from the middle, and put the path in the question box behind it."""

from __future__ import annotations

from textual import events

from ensemble_tui.ui.screens.pdf_file_open import PdfPicker
from tests.ui.conftest import SIZE, settle, wait_until
from tests.ui.test_keys_in_order import key_event


async def test_ctrl_o_then_a_path_in_one_burst_types_the_path_into_the_picker(workspace, chatty, make_app, tmp_path):
    path = str(tmp_path / "some folder" / "a-rather-long-paper-name-2026.pdf")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for event in [events.Key("ctrl+o", None), *map(key_event, path)]:
            app.post_message(event)
        await wait_until(pilot, lambda: isinstance(app.screen, PdfPicker))
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PdfPicker)
        assert picker.path_box.value == path
        assert app.main.chat.input.text == ""


async def test_a_burst_in_the_pickers_field_applies_backspace_and_enter_in_order(workspace, chatty, make_app, tmp_path):
    """Backspace and Enter are the path box's own bindings: they ran after the letters behind
    them (`abcx BSpace y` gave `abcy`… or `abcx`), and Enter chose a path cut short."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        typed = [*map(key_event, str(tmp_path / "notesx")), events.Key("backspace", None), *map(key_event, ".pdf")]
        for event in [events.Key("ctrl+o", None), *typed, events.Key("enter", "\r")]:
            app.post_message(event)
        await wait_until(pilot, lambda: isinstance(app.screen, PdfPicker))
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PdfPicker)
        assert picker.path_box.value == str(tmp_path / "notes.pdf")
        assert picker.message.startswith("Nothing at ") and "notes.pdf" in picker.message  # Enter took it whole
        assert app.main.chat.input.text == ""


async def test_history_opened_renamed_in_one_burst(workspace, chatty, make_app):
    """Ctrl+G, a filter, Tab to the list, r, the new name and Enter, typed in one burst."""
    from textual.widgets import DataTable

    from ensemble_tui.ui.screens.history import HistoryScreen
    from tests.ui.test_archive_screens import ask

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "Why does attention scale?", key="f2")
        first = workspace.session.id
        await pilot.press("ctrl+n")
        await ask(pilot, "What is the baseline?", key="f2")
        keys = [
            events.Key("ctrl+g", None),
            *map(key_event, "attention"),
            events.Key("tab", "\t"),
            key_event("r"),
            events.Key("home", None),
            events.Key("ctrl+k", None),
            *map(key_event, "Scaling notes"),
            events.Key("enter", "\r"),
        ]
        for event in keys:
            app.post_message(event)
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await settle(pilot)
        screen = app.screen
        table = screen.query_one(DataTable)
        assert [str(table.get_row_at(index)[1]) for index in range(table.row_count)] == ["Scaling notes"]
        assert [s.name for s in workspace.archive.sessions() if s.id == first] == ["Scaling notes"]
        assert app.main.chat.input.text == ""


async def test_a_burst_in_the_budget_field_is_applied_in_order(workspace, chatty, make_app):
    from textual.widgets import Input

    from tests.ui.conftest import show_pane

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await show_pane(pilot, "settings")
        field = app.query_one("#budget", Input)
        field.focus()
        await pilot.pause()
        keys = [
            events.Key("end", None),
            events.Key("ctrl+u", None),
            *map(key_event, "$12"),
            events.Key("backspace", None),
            key_event("5"),
            events.Key("enter", "\r"),  # saves it
        ]
        for event in keys:
            app.post_message(event)
        await settle(pilot)
        assert field.value == "$15"
        assert workspace.settings.budget_usd == 15


async def test_esc_closing_a_dialog_then_ctrl_o_and_a_path_in_one_burst(workspace, chatty, make_app, tmp_path):
    """A screen popped and another pushed in one burst: the path still reaches the picker."""
    from ensemble_tui.ui.screens.history import HistoryScreen

    path = str(tmp_path / "paper.pdf")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        for event in [events.Key("escape", "\x1b"), events.Key("ctrl+o", None), *map(key_event, path)]:
            app.post_message(event)
        await wait_until(pilot, lambda: isinstance(app.screen, PdfPicker))
        await settle(pilot)
        assert app.screen.path_box.value == path
        assert app.main.chat.input.text == ""
