"""Every key lands where it was typed: a burst of keys, however fast, is applied in order.

A terminal delivers a burst of typing in one read, and the app gets its keys one after another
with no frame between them. `pilot.press` waits for the app to go idle after each key, which
hides any reordering, so `burst` posts a whole burst to the app at once, as the driver does.
"""

from __future__ import annotations

from textual import events
from textual.pilot import Pilot

from tests.ui.conftest import SIZE, settle

TEXT = "first line\nsecond line here\nthird\nfourth and last"


def key_event(char: str) -> events.Key:
    """The key a terminal reports for `char`: Ctrl+J for a new line."""
    if char == "\n":
        return events.Key("ctrl+j", "\n")
    if char == " ":
        return events.Key("space", " ")
    return events.Key(char, char)


async def burst(pilot: Pilot, text: str, *, then: events.Key | None = None) -> None:
    """Type `text` (and then one more key) in a single burst, then let the app catch up."""
    for event in [*map(key_event, text), *filter(None, [then])]:
        pilot.app.post_message(event)
    await pilot.pause()
    await pilot.pause()


async def test_ctrl_j_in_fast_bursts_lands_where_it_was_typed(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(6):
            await burst(pilot, TEXT)
            assert app.main.chat.input.text == TEXT
            app.main.chat.input.clear()
            await pilot.pause()
        assert not workspace.session.history


async def test_enter_right_after_the_question_sends_all_of_it(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await burst(pilot, "Why is\nthe sky blue?", then=events.Key("enter", "\r"))
        await settle(pilot)
        assert [m.text for m in workspace.session.history] == ["Why is\nthe sky blue?", "ChatGPT answer"]
        assert app.main.chat.input.text == ""


async def test_a_mode_key_right_after_the_question_sends_all_of_it(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await burst(pilot, TEXT, then=events.Key("f2", None))
        await settle(pilot)
        assert [m.text for m in workspace.session.history] == [TEXT, "Claude answer"]
        assert chatty["Claude"].calls and not chatty["ChatGPT"].calls


async def test_keys_after_enter_in_the_same_burst_stay_in_the_box_for_the_next_question(workspace, chatty, make_app):
    """Issue 35 §3: `'Second race test' Enter 'next words'` in one write sent one question,
    "Second race testnext words"."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for event in [*map(key_event, "Second race test"), events.Key("enter", "\r"), *map(key_event, "next words")]:
            app.post_message(event)
        await settle(pilot)
        assert [m.text for m in workspace.session.history][:1] == ["Second race test"]
        assert app.main.chat.input.text == "next words"


async def test_a_letter_right_after_backspace_is_kept(workspace, chatty, make_app):
    """Issue 35 §3: `x BSpace y` in one burst gave `abcx`: the Backspace ran after the `y`."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await burst(pilot, "abc")
        for _ in range(3):
            for event in [key_event("x"), events.Key("backspace", None), key_event("y")]:
                app.post_message(event)
            await pilot.pause()
            await pilot.pause()
            assert app.main.chat.input.text == "abcy"
            await burst(pilot, "", then=events.Key("backspace", None))  # back to how the test found it
            assert app.main.chat.input.text == "abc"
