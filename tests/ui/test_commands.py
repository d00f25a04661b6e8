"""Command palette entries, clipboard, links, the transcript folder and the keymap file."""

from __future__ import annotations

import json

from textual.command import CommandPalette

from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.ui.screens.links import LinkPicker
from tests.support import Hang
from tests.ui.conftest import SIZE, settle, type_text, wait_until

EXPECTED_COMMANDS = {
    "New chat",
    "Select PDF",
    "Remove PDF",
    "Send with ChatGPT",
    "Send with Claude",
    "Send with Gemini",
    "Send with ChatGPT & Gemini",
    "Send with All",
    "Cancel the run",
    "Show Chat pane",
    "Show ChatGPT pane",
    "Show Claude pane",
    "Show Gemini pane",
    "Show Attachments pane",
    "Show Resubmissions pane",
    "Show Settings pane",
    "Copy last reply",
    "Open a link from the last reply",
    "Open transcript folder",
    "Show earlier messages",
}


async def test_the_palette_offers_every_action(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE):
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert EXPECTED_COMMANDS <= titles


async def test_a_palette_command_runs_from_the_palette(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"settings pane")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main.tabs.active == "settings")


async def test_send_from_the_palette(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "From the palette")
        (send,) = [c for c in app.get_system_commands(app.screen) if c.title == "Send with Gemini"]
        send.callback()
        await settle(pilot)
        assert chatty["Gemini"].calls and workspace.session.last_mode == "gemini"


async def test_copy_last_reply_uses_the_clipboard(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.main.reply_actions.copy_last_reply()  # nothing yet: a warning, no crash
        await type_text(pilot, "Copy me")
        await pilot.press("f3")
        await settle(pilot)
        app.main.reply_actions.copy_last_reply()
        assert app.clipboard == "Gemini answer"


async def test_only_http_links_are_offered_and_opened_on_request(workspace, chatty, make_app, monkeypatch):
    workspace.session.history = [
        ChatMessage(role="user", text="Links?"),
        ChatMessage(
            role="assistant",
            text="See https://example.org/a, [x](javascript:alert(1)) and file:///etc/passwd",
            sources=["https://example.org/source"],
        ),
    ]
    opened: list[str] = []
    app = make_app()
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with app.run_test(size=SIZE) as pilot:
        app.main.reply_actions.open_link()
        await wait_until(pilot, lambda: isinstance(app.screen, LinkPicker))
        assert app.screen.urls == ["https://example.org/a", "https://example.org/source"]
        assert opened == []  # nothing opens until the user picks
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, LinkPicker))
        assert opened == ["https://example.org/a"]


async def test_open_transcript_folder(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE):
        app.main.reply_actions.open_transcripts()
        assert app.folder_opener.opened == [workspace.paths.chats]


async def test_keymap_file_remaps_a_binding(workspace, chatty, make_app):
    (workspace.paths.configurations / "Keymap.json").write_text(json.dumps({"mode.claude": "f9"}))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Remapped")
        await pilot.press("f2")  # no longer bound
        await pilot.pause()
        assert app.main.turns.turn is None and not chatty["Claude"].calls
        await pilot.press("f9")
        await settle(pilot)
        assert chatty["Claude"].calls


async def test_the_status_line_names_the_cancel_key_as_the_keymap_has_it(workspace, chatty, make_app):
    (workspace.paths.configurations / "Keymap.json").write_text(json.dumps({"run.cancel": "f12"}))
    chatty["Claude"].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Slow one")
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.main.turns.turn is not None)
        assert "F12 cancels" in app.main.chat.status.shown.status.plain
        await pilot.press("f12")
        await settle(pilot)
        assert "Cancelled" in app.main.chat.status.shown.status.plain
        assert "cancels" not in app.main.chat.status.shown.status.plain


async def test_how_to_cancel_stays_in_view_when_the_status_is_too_long_for_the_line(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["proposer"] = ["A quick proposal"]
    for label in ("Claude", "Gemini"):
        chatty[label].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=(80, 30)) as pilot:
        await type_text(pilot, "A question for everyone")
        await pilot.press("f5")
        await wait_until(pilot, lambda: app.main.chat.status.answered == ("ChatGPT",))  # two models still to answer
        await pilot.pause(0.2)  # a tick of the spinner repaints the line at its width
        status = app.main.chat.status
        shown = status.shown.status
        assert shown.plain.endswith("· Esc cancels") and "…" in shown.plain
        assert shown.cell_len <= status.status_room
        await pilot.press("escape")
        await settle(pilot)


async def test_a_broken_keymap_file_is_a_warning(workspace, chatty, make_app):
    (workspace.paths.configurations / "Keymap.json").write_text("{not json")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert any("Keymap.json ignored" in str(n.content) for n in app.main.chat.log_view.query(".chat-notice"))


async def test_a_keymap_with_a_mistyped_id_says_so_and_keeps_its_other_keys(workspace, chatty, make_app):
    (workspace.paths.configurations / "Keymap.json").write_text('{"mode.all": "f9", "mode.al": "f8"}')
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        notices = [str(n.content) for n in app.main.chat.log_view.query(".chat-notice")]
        assert any('"mode.al" names no binding' in notice for notice in notices), notices
        await type_text(pilot, "Still remapped?")
        await pilot.press("f9")  # All, on its remapped key
        await settle(pilot)
        assert len(app.main.chat.log_view.items) == 2 and workspace.session.last_mode == "all"


async def test_new_chat_while_running_cancels_first_and_keeps_the_question(workspace, chatty, make_app):
    from tests.support import Hang

    chatty["ChatGPT"].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        old_id = workspace.session.id
        await type_text(pilot, "Unfinished")
        await pilot.press("f12")
        await wait_until(pilot, lambda: bool(app.main.chat.log_view.items))
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert workspace.session.id != old_id and workspace.session.history == []
        assert app.main.chat.input.text == "Unfinished"
        assert json.loads(workspace.paths.session_file.read_text())["id"] == workspace.session.id
