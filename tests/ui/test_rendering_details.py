"""Rendering details: numbered lists keep their "1.", display math is indented by layout."""

from __future__ import annotations

from ensemble_tui.ui.chat_log.rendering import markdown
from tests.ui.conftest import SIZE, rendered_text, settle, type_text


async def test_a_numbered_list_in_a_question_keeps_its_periods(workspace, chatty, make_app):
    chatty["ChatGPT"].default = "Answers:\n\n1) first\n2) second\n\n- a bullet"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Two things:\n1. why is it so?\n2. how long does it take?")
        await pilot.press("f12")
        await settle(pilot)
        question, reply = app.main.chat.log_view.entries
        shown = rendered_text(question.content)
        assert "1. why is it so?" in shown and "2. how long does it take?" in shown
        replied = rendered_text(reply.content)
        assert "1) first" in replied and "2) second" in replied and "• a bullet" in replied


def test_a_long_numbered_list_aligns_its_numbers_and_wraps_under_the_text():
    text = "\n".join(f"{n}. item {n}" for n in range(1, 11)) + " " + "word " * 30
    lines = [line.rstrip() for line in rendered_text(markdown(text), width=40).strip("\n").splitlines()]
    assert lines[0] == "  1. item 1" and lines[9] == " 10. item 10 word word word word word"
    assert lines[10].startswith("     word")  # wrapped under the text, not under the number


async def test_display_math_is_indented_by_layout_and_a_copy_holds_the_formula_alone(workspace, chatty, make_app):
    chatty[
        "ChatGPT"
    ].default = (
        "The sum\n\n$$\\sum_{i=1}^{n} x_i^2$$\n\nand the matrix $$\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}$$"
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Show me")
        await pilot.press("f12")
        await settle(pilot)
        shown = rendered_text(app.main.chat.log_view.entries[-1].content)
        lines = shown.splitlines()
        assert "    ∑ᵢ₌₁ⁿ xᵢ²" in [line.rstrip() for line in lines]
        rows = [line.rstrip() for line in lines if "⎛" in line or "⎝" in line]
        assert rows == ["    ⎛a  b⎞", "    ⎝c  d⎠"]  # set in by four cells, the rows aligned
        assert "\u2800" not in shown and "\u00a0" not in shown  # nothing invisible to copy along
