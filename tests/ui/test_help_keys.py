"""F1 is help everywhere: a grouped list of every key, found in the palette too; F1 never sends."""

from __future__ import annotations

import html
import json

from textual.command import CommandList, CommandPalette
from textual.widgets import OptionList, Static

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.ui.screens.help import HelpScreen
from ensemble_tui.ui.screens.style_picker import StylePicker
from tests.ui.conftest import SIZE, rendered_text, settle, show_pane, type_text, wait_until


def screen_text(app) -> str:
    return html.unescape(app.export_screenshot()).replace("\u00a0", " ")


def help_text(app) -> str:
    """What the help screen shows: its group titles and rows, as plain text."""
    screen = app.screen
    assert isinstance(screen, HelpScreen)
    return "\n".join(rendered_text(widget.content, width=100) for widget in screen.query(Static))


async def test_f1_on_an_empty_box_opens_the_help_and_sends_nothing(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "First")
        await pilot.press("enter")
        await settle(pilot)
        calls = sum(len(p.calls) for p in chatty.values())
        await pilot.press("f1")  # an empty box: F1 used to redo the reply with ChatGPT, paid
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await settle(pilot)
        assert sum(len(p.calls) for p in chatty.values()) == calls
        assert len(workspace.session.history) == 2
        shown = help_text(app)
        for group in ("Turns", "Styles", "Panes", "Chat", "App"):
            assert group in shown
        for line in (
            "F12",
            "Send with ChatGPT",
            "Ctrl+J / Shift+Enter",
            "F9",
            "Ctrl+PgDn",
            "Ctrl+G",
            "Ctrl+P",
            "Ctrl+Q",
            "Esc",
        ):
            assert line in shown
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen))
        assert app.focused is app.main.chat.input


async def test_f1_works_in_a_dialog_and_in_a_text_field_and_closes_on_f1(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(StylePicker(app.main.choices.style))
        await wait_until(pilot, lambda: isinstance(app.screen, StylePicker))
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, StylePicker))
        await pilot.press("escape")
        await show_pane(pilot, "settings")
        app.query_one("#temperature").focus()
        await pilot.pause()
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))


async def test_the_help_shows_remapped_keys_and_added_provider_names_as_text(workspace, chatty, make_app):
    (workspace.paths.configurations / "Keymap.json").write_text(json.dumps({"mode.claude": "ctrl+b"}))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        claude = next(line for line in help_text(app).splitlines() if "Send with Claude" in line)
        assert "Ctrl+B" in claude and "F2" not in claude


async def palette_options(pilot, query: str) -> list[str]:
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*query)
    await pilot.pause(0.3)
    options = app.screen.query_one(CommandList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_palette_finds_the_help_by_help_and_by_keys(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        found = await palette_options(pilot, "help")
        assert found and found[0].startswith("Help: keys")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen))
        assert any(option.startswith("Help: keys") for option in await palette_options(pilot, "keys"))


async def test_the_keys_panel_names_the_pane_keys_in_the_settings_pane(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await show_pane(pilot, "settings")
        app.query_one("#temperature").focus()
        app.action_show_help_panel()  # the palette's "Keys"
        await wait_until(pilot, lambda: "Page Up" in screen_text(app))  # the panel is drawn
        shown = screen_text(app)
        assert "Next pane" in shown and "Previous pane" in shown
        assert "Page Left" not in shown and "Page Right" not in shown
        await pilot.press("ctrl+pagedown")
        await pilot.pause()
        assert app.main.tabs.active == "chat"  # from the last pane round to the first


async def test_the_style_picker_shows_each_style_key_and_the_key_chooses_there(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.click("#style-button")
        await wait_until(pilot, lambda: isinstance(app.screen, StylePicker))
        styles = app.screen.query_one(OptionList)
        width = styles.scrollable_content_region.width
        shown = [rendered_text(styles.get_option_at_index(i).prompt, width) for i in range(styles.option_count)]
        for line, key, label in zip(
            shown, ("F6", "F7", "F8", "F9"), ("Aggregator", "Council", "Critique & vote", "Debate"), strict=True
        ):
            assert line.startswith(f"{key}  {label} - ")
        await pilot.press("f8")
        await wait_until(pilot, lambda: not isinstance(app.screen, StylePicker))
        assert app.main.choices.style is Style.VOTE
