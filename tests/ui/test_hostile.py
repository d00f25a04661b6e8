"""Untrusted model output: markup stays inert, escapes never reach the screen, nothing crashes."""

from __future__ import annotations

import html
import time

from rich.text import Text

from ensemble_tui.ui.chat_log.chat_view import ChatEntry
from tests.ui.conftest import SIZE, settle, show_pane, type_text

HOSTILE = (
    "[@click=app.quit]Click me[/] and [bold]never closed and [link=file:///etc/passwd]x[/link]\n\n"
    "Clipboard \x1b]52;c;SGVsbG8=\x07 clear \x1b[2J title \x1b]0;pwned\x07 "
    "link \x1b]8;;https://evil.example\x1b\\text\x1b]8;;\x1b\\ nul \x00 c1 \x9b31m end"
)


def screen_text(app) -> str:
    return html.unescape(app.export_screenshot()).replace("\u00a0", " ")


async def test_hostile_reply_is_shown_literally_and_is_harmless(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["proposer"] = [HOSTILE]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "[@click=app.quit] in my own question [bold]")
        await pilot.press("f12")
        await settle(pilot)
        reply = list(app.query(ChatEntry))[-1]
        assert "\x1b" not in reply.message.text and "\x9b" not in reply.message.text
        shown = screen_text(app)
        assert "[@click=app.quit]Click" in shown
        assert "[bold]never" in shown
        assert "[@click=app.quit] in my own question [bold]" in shown
        await pilot.click(reply)
        await pilot.click(list(app.query(ChatEntry))[0])
        await pilot.pause()
        assert app.is_running and app.return_code is None
        # The model pane shows the same text, just as inertly.
        await show_pane(pilot, "chatgpt")
        assert "[@click=app.quit]Click" in screen_text(app)
        await pilot.click(app.main.model_pane("ChatGPT").query_one(".model-output"))
        assert app.is_running


async def test_control_characters_typed_or_pasted_by_the_user_are_not_stored(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Paste \x1b[2J with escapes\x07")
        await pilot.press("f2")
        await settle(pilot)
        assert workspace.session.history[0].text == "Paste [2J with escapes"


async def test_a_huge_reply_is_plain_text_and_does_not_stall(workspace, chatty, make_app):
    chatty["Gemini"].scripts["proposer"] = ["# Big\n" + ("word " * 20 + "\n") * 10_000]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Big one")
        started = time.monotonic()
        await pilot.press("f3")
        await settle(pilot)
        reply = list(app.query(ChatEntry))[-1]
        assert isinstance(reply.content, Text)  # beyond the Markdown limit: plain, cheap
        assert time.monotonic() - started < 10
        await pilot.press("x")
        assert app.main.chat.input.text == "x"
