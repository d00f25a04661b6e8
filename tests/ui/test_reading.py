"""Reading a reply: it arrives shown from its start with the question just above, and a chat
reopens at its last reply's start; the chat scrolls from the question box; typing in the chat goes
to the box; toasts stay off the box."""

from __future__ import annotations

import re

import pytest
from textual._compositor import CompositorUpdate
from textual.widgets._toast import Toast

from ensemble_tui.core.chat.session import ChatMessage
from tests.support import Hang
from tests.ui.conftest import settle, type_text, wait_until

SMALL = (80, 24)
LONG_REPLY = "\n\n".join(f"Paragraph {n} of a long answer about the proof." for n in range(1, 41))


async def test_a_long_reply_arrives_shown_from_its_start_with_its_question_above(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["proposer"] = ["A short first answer.", LONG_REPLY]
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        for question in ("First question", "What does the proof need?"):
            await type_text(pilot, question)
            await pilot.press("f12")
            await settle(pilot)
        await pilot.pause()
        log = app.main.chat.log_view
        question, reply = log.entries[-2:]
        assert log.scroll_y == question.virtual_region_with_margin.y  # the question at the top of the view
        assert reply.virtual_region.y < log.scroll_y + log.scrollable_content_region.height  # its start shown
        assert log.max_scroll_y > log.scroll_y  # not scrolled to its end


def record_frames(app) -> list[str]:
    """The text of every frame the app draws from now on (styles and cursor moves dropped)."""
    frames: list[str] = []
    draw = app._display  # private, but the one place every frame passes (as bench/probes.py says)

    def display(screen, update) -> None:
        draw(screen, update)
        if isinstance(update, CompositorUpdate):
            raw = update.render_segments(app.console)
            frames.append(re.sub(r"\x1b\[[0-9;:?]*[A-Za-z]", " ", raw))

    app._display = display
    return frames


@pytest.mark.parametrize("size", [SMALL, (120, 40)])
async def test_the_first_frame_that_shows_a_long_reply_shows_its_start_never_its_end(workspace, chatty, make_app, size):
    chatty["ChatGPT"].scripts["proposer"] = ["A short first answer.", LONG_REPLY]
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await type_text(pilot, "First question")
        await pilot.press("f12")
        await settle(pilot)
        await type_text(pilot, "What does the proof need?")
        frames = record_frames(app)
        await pilot.press("f12")
        await settle(pilot)
        first = next(frame for frame in frames if "Paragraph" in frame)
        assert "Paragraph 1 of" in first and "What does the proof need?" in first
        assert "Paragraph 40" not in first


def chat_ending_in_a_long_reply() -> list[ChatMessage]:
    return [
        ChatMessage(role="user", text="First question"),
        ChatMessage(role="assistant", text="A short first answer."),
        ChatMessage(role="user", text="What does the proof need?"),
        ChatMessage(role="assistant", text=LONG_REPLY),
    ]


def shows_the_start(log) -> bool:
    question, reply = log.entries[-2:]
    return (
        log.scroll_y == question.virtual_region_with_margin.y
        and reply.virtual_region.y < log.scroll_y + log.scrollable_content_region.height
        and log.max_scroll_y > log.scroll_y
    )


@pytest.mark.parametrize("size", [SMALL, (120, 40)])
async def test_a_chat_reopened_at_start_shows_its_last_reply_from_its_start_never_its_end(
    workspace, chatty, make_app, size
):
    workspace.session.history = chat_ending_in_a_long_reply()
    workspace.store.save(workspace.session)
    app = make_app()
    frames = record_frames(app)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.pause()
        assert shows_the_start(app.main.chat.log_view)
    shown = [frame for frame in frames if "Paragraph" in frame]
    assert shown and "Paragraph 1 of" in shown[0]
    assert not any("Paragraph 40" in frame for frame in frames)


@pytest.mark.parametrize("size", [SMALL, (120, 40)])
async def test_a_chat_opened_in_the_running_app_shows_its_last_reply_from_its_start(workspace, chatty, make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        frames = record_frames(app)
        app.main.chat.log_view.show(chat_ending_in_a_long_reply())  # as History opens a chat
        await settle(pilot)
        await pilot.pause()
        assert shows_the_start(app.main.chat.log_view)
    first = next(frame for frame in frames if "Paragraph" in frame)
    assert "Paragraph 1 of" in first and "Paragraph 40" not in first
    assert not any("Paragraph 40" in frame for frame in frames)


async def test_the_chat_scrolls_from_the_question_box_and_typing_in_the_chat_goes_to_the_box(
    workspace, chatty, make_app
):
    chatty["ChatGPT"].scripts["proposer"] = [LONG_REPLY]
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await type_text(pilot, "Tell me everything")
        await pilot.press("f12")
        await settle(pilot)
        log, box = app.main.chat.log_view, app.main.chat.input
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y and app.focused is box
        await pilot.press("pageup")
        await pilot.pause()
        assert log.scroll_y < log.max_scroll_y and app.focused is box
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert log.scroll_y == 0 and app.focused is box
        await pilot.press("pagedown")
        await pilot.pause()
        assert log.scroll_y > 0
        log.focus()
        await pilot.pause()
        await pilot.press("a", "n", "d")
        assert app.focused is box and box.text == "and"


async def test_toasts_never_cover_the_question_box_or_the_buttons(workspace, chatty, make_app):
    chatty["Gemini"].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await type_text(pilot, "Slow")
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.main.turns.turn is not None)
        await pilot.press("f12")  # refused: a warning toast
        await wait_until(pilot, lambda: bool(app.query(Toast)))
        await pilot.pause()
        (toast,) = app.query(Toast)
        for widget in (app.main.chat.input, app.main.chat.actions):
            assert not toast.region.overlaps(widget.region), widget


async def test_a_chat_reopened_with_a_warning_after_its_last_reply_shows_the_warning(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        log = app.main.chat.log_view
        log.show(chat_ending_in_a_long_reply())
        log.add_notice("No API key for Gemini", "warning")  # as the app warns when it starts
        await settle(pilot)
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y  # the end, with the warning, stays in view
