"""Opening a chat of math replies: formulas the first frame could show are converted before it,
the others just after it (ui/chat_log/math_hold.py); the reader never sees raw LaTeX and nothing moves."""

from __future__ import annotations

import html
import re

import pytest
from textual.app import App, ComposeResult

from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.ui.chat_log import chat_view
from ensemble_tui.ui.chat_log.chat_view import MessageLog

MATH = (
    "Attention is $\\mathrm{{softmax}}\\left(\\frac{{QK^T}}{{\\sqrt{{d_{n}}}}}\\right)V$ with $\\alpha_{n}+\\beta = 1$.\n\n"
    "$$\\sum_{{i=1}}^{{{n}}} x_i^2$$"
)
PROSE = "\n\n".join(f"Point {k} of the reply: the aggregator reads every proposal before it writes." for k in range(14))
RAW_LATEX = ("\\frac", "\\alpha", "\\sum", "\\mathrm", "$$")


def history(turns: int, math_last: bool = False) -> list[ChatMessage]:
    """Replies with their formulas up front and prose after, as models write them; `math_last`:
    the newest reply ends with a formula instead (the first frame shows it)."""
    messages: list[ChatMessage] = []
    for n in range(1, turns + 1):
        reply = MATH.format(n=n) + "\n\n" + PROSE
        if math_last and n == turns:
            reply = PROSE + "\n\n" + MATH.format(n=n)
        messages += [ChatMessage(role="user", text=f"Question {n}?"), ChatMessage(role="assistant", text=reply)]
    return messages


class LogApp(App[None]):
    def __init__(self, messages: list[ChatMessage]) -> None:
        super().__init__()
        self.messages = messages

    def compose(self) -> ComposeResult:
        yield MessageLog(id="log")

    def on_mount(self) -> None:
        self.query_one(MessageLog).show(self.messages)


def screen(app: App[None]) -> str:
    """The text on screen, line by line, less the scrollbar (its thumb moves as the log grows)."""
    lines = re.findall(r"<text[^>]*>(.*?)</text>", app.export_screenshot())
    text = "\n".join(html.unescape(re.sub(r"<[^>]+>", "", line)) for line in lines).replace("\u00a0", " ")
    return re.sub(r"[▁▂▃▄▅▆▇█▔▉▊▋▌▍▎▏▐]", "", text)


def held(app: App[None]) -> int:
    return sum(1 for entry in app.query_one(MessageLog).entries if entry.held_math is not None and entry.held_math.held)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_first_frame_shows_no_latex_and_converting_later_moves_nothing(size, monkeypatch):
    frozen = LogApp(history(6))
    monkeypatch.setattr(chat_view, "release_after_frame", lambda log, plan: None)  # the first frame, kept
    async with frozen.run_test(size=size) as pilot:
        await pilot.pause()
        first_frame = screen(frozen)
        assert held(frozen) >= 1  # some formulas were indeed left for later
    monkeypatch.undo()
    assert "Point 13" in first_frame and not any(raw in first_frame for raw in RAW_LATEX)
    app = LogApp(history(6))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert held(app) == 0
        assert screen(app) == first_frame  # converting above the view moved nothing
        log = app.query_one(MessageLog)
        log.scroll_home(animate=False)
        await pilot.pause()
        top = screen(app)
        assert "α" in top and "∑" in top and not any(raw in top for raw in RAW_LATEX)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_formula_in_the_first_frame_is_converted_before_it(size, monkeypatch):
    app = LogApp(history(6, math_last=True))
    monkeypatch.setattr(chat_view, "release_after_frame", lambda log, plan: None)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        shown = screen(app)
        assert "α" in shown and "∑" in shown and not any(raw in shown for raw in RAW_LATEX)
        assert held(app) >= 1  # the older replies still wait
