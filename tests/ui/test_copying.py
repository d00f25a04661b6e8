"""Copying: the reply being read (Ctrl+T), and each code block alone, by a click or the palette.
What is copied is the Markdown source, LaTeX and all."""

from __future__ import annotations

from ensemble_tui.ui.chat_log.chat_view import ChatEntry
from tests.ui.conftest import settle, type_text

SMALL = (80, 24)
FIRST = "The first reply, with $\\alpha$ and **bold**.\n\n" + "\n\n".join(f"Line {n}." for n in range(30))
SECOND = "Run this:\n\n```bash\necho $HOME\nls -l\n```\n\nThen this:\n\n```python\nprint(1)\n```"


async def ask_twice(pilot) -> None:
    for question in ("First question", "Second question"):
        await type_text(pilot, question)
        await pilot.press("f12")
        await settle(pilot)


async def test_ctrl_t_copies_the_reply_scrolled_to_as_markdown(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["proposer"] = [FIRST, SECOND]
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await ask_twice(pilot)
        await pilot.press("ctrl+t")
        assert app.clipboard == SECOND  # the newest reply is the one in view
        await pilot.press("ctrl+home")
        await pilot.pause()
        await pilot.press("ctrl+t")
        assert app.clipboard == FIRST  # scrolled back to the first: that one, with its LaTeX source
        assert "Reply copied" in app.main.chat.status.text


async def test_each_code_block_is_copied_alone_from_the_palette_or_a_click(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["proposer"] = [FIRST, SECOND]
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ask_twice(pilot)
        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        assert "Copy code block 1: bash: echo $HOME" in commands
        commands["Copy code block 2: python: print(1)"].callback()
        assert app.clipboard == "print(1)\n"

        reply = app.main.chat.log_view.entries[-1]
        assert isinstance(reply, ChatEntry)
        line = next(y for y in range(reply.region.height) if reply.code_block_at(y) == 0)
        await pilot.click(reply, offset=(4, line))
        assert app.clipboard == "echo $HOME\nls -l\n"
        before = app.clipboard
        await pilot.click(reply, offset=(4, 0))  # "Run this:" is not code: nothing copied
        assert app.clipboard == before
