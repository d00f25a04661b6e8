"""Mathematics in the chat: shown as Unicode text, Ctrl+L (and the palette) switches to the raw
LaTeX and back, and a copy is always the Markdown source."""

from __future__ import annotations

from ensemble_tui.ui.chat_log.rendering import set_math_rendering
from tests.ui.conftest import rendered_text, settle, type_text

REPLY = (
    "The score is $\\frac{QK^T}{\\sqrt{d_k}}$ and $\\alpha+\\beta$ weighs it:\n\n"
    "$$\\sum_{i=1}^{n} x_i^2$$\n\nIt costs $5 and $10 to train."
)


async def test_math_is_text_and_ctrl_l_shows_the_latex_and_back(workspace, chatty, make_app):
    chatty["Claude"].scripts["proposer"] = [REPLY]
    app = make_app()
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await type_text(pilot, "What is the score?")
            await pilot.press("f2")
            await settle(pilot)
            shown = rendered_text(app.main.chat.log_view.entries[-1].content, width=96)
            for symbol in ("α", "β", "√", "∑"):
                assert symbol in shown
            assert "\\frac" not in shown and "\\sum" not in shown and "\\" not in shown.split("Claude ·")[0]
            assert "costs $5 and $10" in shown
            await pilot.press("ctrl+l")
            await pilot.pause()
            raw = rendered_text(app.main.chat.log_view.entries[-1].content, width=96)
            assert "\\frac{QK^T}{\\sqrt{d_k}}" in raw and "α" not in raw
            assert "LaTeX" in app.main.chat.status.text
            await pilot.press("ctrl+t")
            assert app.clipboard == REPLY  # the source, whichever way it is shown
            commands = {command.title: command for command in app.get_system_commands(app.screen)}
            commands["Show math as text or as LaTeX"].callback()
            await pilot.pause()
            assert "∑" in rendered_text(app.main.chat.log_view.entries[-1].content, width=96)
    finally:
        set_math_rendering(True)  # the switch is the process's; leave it as other tests expect
