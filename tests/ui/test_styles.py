"""Picking the deliberation style: F6-F9, the selector, the palette; what each style shows.

Which style ran is read from the scripted providers' calls: a council asks for rankings and a
chairman, a vote for critiques, a debate for debate rounds, the aggregator loop for aggregation.
The reviewers answer with the demo simulator's well-formed ballots.
"""

from __future__ import annotations

from textual.widgets import OptionList

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.simulator.demo import critique, debate, ranking
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.chat_log.chat_view import ChatNotice, VoteNotice
from ensemble_tui.ui.notify import RecordingNotifier
from ensemble_tui.ui.screens.style_picker import StylePicker
from tests.core.helpers import restored_session
from tests.support import ScriptedProvider
from tests.ui.conftest import SIZE, rendered_text, restarted_app, settle, type_text, wait_until


def well_formed_reviews(providers: dict[str, ScriptedProvider]) -> None:
    """Every reviewer and debater answers in the format its parser expects."""
    for label, provider in providers.items():
        provider.scripts["critique"] = [lambda request, label=label: critique(label, request.messages[-1].text)] * 20
        provider.scripts["ranking"] = [lambda request, label=label: ranking(label, request.messages[-1].text)] * 20
        provider.scripts["debate"] = [lambda request, label=label: debate(label, request.messages[-1].text)] * 20


def roles(providers: dict[str, ScriptedProvider]) -> set[str]:
    from tests.support import role_of

    return {role_of(call) for provider in providers.values() for call in provider.calls}


def forget_calls(providers: dict[str, ScriptedProvider]) -> None:
    for provider in providers.values():
        provider.calls.clear()


def style_status(app) -> str:
    return app.main.chat.status.shown.style.plain


async def ask(pilot, text: str, key: str = "f5") -> None:
    await type_text(pilot, text)
    await pilot.press(key)
    await settle(pilot)


async def test_each_style_key_chooses_the_style_the_engine_runs(workspace, chatty, make_app):
    well_formed_reviews(chatty)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert app.main.choices.style is Style.AGGREGATE and style_status(app) == "Style Aggregator"
        await pilot.press("f8")  # over the question box, which binds F6/F7 itself
        assert app.main.chat.actions.style_button.chosen is Style.VOTE
        assert str(app.main.chat.actions.style_button.label) == "Critique & vote ▾"
        assert style_status(app) == "Style Critique & vote"
        await ask(pilot, "Vote on it")
        assert {"critique"} <= roles(chatty) and "aggregator" not in roles(chatty)
        assert app.main.chat.status.shown.status.plain.startswith("Reply complete (All · Critique & vote")

        forget_calls(chatty)
        await pilot.press("f7")
        await ask(pilot, "Council please")
        assert {"ranking", "chairman"} <= roles(chatty)

        forget_calls(chatty)
        await pilot.press("f9")
        await ask(pilot, "Debate it")
        assert "debate" in roles(chatty)
        assert len(chatty["Claude"].calls_as("debate")) == workspace.settings.debate_rounds - 1

        forget_calls(chatty)
        await pilot.press("f6")
        await ask(pilot, "Back to the default")
        assert "aggregator" in roles(chatty) and "ranking" not in roles(chatty)
        assert workspace.session.last_style == "aggregate"


async def test_the_style_button_and_the_palette_choose_a_style_that_persists(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        button = app.main.chat.actions.style_button
        button.focus()
        await pilot.press("enter")  # the list of styles, the current one highlighted
        await wait_until(pilot, lambda: isinstance(app.screen, StylePicker))
        styles = app.screen.query_one(OptionList)
        assert styles.highlighted == 0 and styles.option_count == len(Style)
        await pilot.press("escape")  # closes, nothing chosen
        await wait_until(pilot, lambda: not isinstance(app.screen, StylePicker))
        await settle(pilot)  # the main screen resumed (under load a key can come before that)
        assert app.main.choices.style is Style.AGGREGATE and app.focused is button
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, StylePicker))
        await pilot.press("down", "enter")  # Council
        await wait_until(pilot, lambda: app.main.choices.style is Style.COUNCIL)
        assert str(button.label) == "Council ▾" and style_status(app) == "Style Council"
        assert app.focused is app.main.chat.input  # Enter sends again at once
        await pilot.click("#style-button")  # the mouse opens the same list
        await wait_until(pilot, lambda: isinstance(app.screen, StylePicker))
        assert app.screen.query_one(OptionList).highlighted == 1  # Council, the style in use
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, StylePicker))
        assert restored_session(workspace.paths.root).last_style == "council"

        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        assert {f"Style: {style.label}" for style in Style} <= set(commands)
        assert "(F9)" in commands["Style: Debate"].help
        commands["Style: Debate"].callback()
        await pilot.pause()
        assert app.main.choices.style is Style.DEBATE and button.chosen is Style.DEBATE

    # A restart comes back with the chosen style, in the selector and the status line.
    reopened = Workspace.open(workspace.paths.root)
    reopened.attach_providers(dict(chatty), {})
    again = EnsembleApp(reopened, notifier=RecordingNotifier())
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.main.choices.style is Style.DEBATE
        assert again.main.chat.actions.style_button.chosen is Style.DEBATE
        assert style_status(again) == "Style Debate"


async def test_single_models_ignore_the_style(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f7")
        await ask(pilot, "Just Claude", key="f2")
        assert [call for p in chatty.values() for call in p.calls] == chatty["Claude"].calls
        assert len(chatty["Claude"].calls) == 1
        assert app.main.chat.status.shown.status.plain.startswith("Reply complete (Claude,")
        assert style_status(app) == "Style Council (multi-model turns only)"
        assert workspace.session.last_style == "council"  # kept for the next multi-model turn


async def test_a_vote_shows_one_review_line_and_the_tally_table(workspace, chatty, make_app):
    well_formed_reviews(chatty)
    chatty["Gemini"].scripts["critique"] = ["not JSON at all", "still not JSON"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f8")
        await ask(pilot, "Which answer is best?")
        (line,) = [n for n in app.query(ChatNotice) if "Critiques:" in str(n.content)]
        text = str(line.content)
        assert "ChatGPT ✓" in text and "Claude ✓" in text and "Gemini ✗ unreadable, left out" in text
        assert line.kind == "warning"
        assert not app.query(VoteNotice)  # the tally shown during the run now stands beside the reply
        reply = app.main.chat.log_view.entries[-1]
        assert reply.region.y > line.region.y
        shown = rendered_text(reply.content)
        assert "Borda" in shown and "mean" in shown
        assert f"All · Critique & vote · winner {workspace.model_for('Claude')}" in shown  # who wrote it, dim
        assert "Vote:" not in reply.message.text and "winner" not in reply.message.text  # the text stays clean


async def test_a_style_chosen_during_a_run_applies_to_the_next_turn(workspace, chatty, make_app):
    from tests.support import Hang

    chatty["Claude"].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Slow")
        await pilot.press("f5")
        await wait_until(pilot, lambda: app.main.turns.turn is not None and bool(app.main.chat.log_view.items))
        await pilot.press("f7")
        assert app.main.turns.turn.style is Style.AGGREGATE and app.main.choices.style is Style.COUNCIL
        await pilot.press("escape")
        await settle(pilot)
        assert workspace.session.last_style == "council"


async def test_who_wrote_a_reply_and_its_tally_are_shown_again_after_a_restart(workspace, chatty, make_app, home):
    well_formed_reviews(chatty)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f8")
        await ask(pilot, "Which answer is best?")
        before = rendered_text(app.main.chat.log_view.entries[-1].content)
    again = restarted_app(home)
    async with again.run_test(size=SIZE):
        after = rendered_text(again.main.chat.log_view.entries[-1].content)
    assert "· winner " in after and "Borda" in after
    assert after == before


async def test_the_line_under_a_reply_is_drawn_whole(workspace, chatty, make_app):
    import html
    import re

    chatty["Claude"].scripts["proposer"] = ["A short answer."]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Cite it")
        await pilot.press("f2")
        await settle(pilot)
        svg = app.export_screenshot()
        shown = html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")
        assert f"Claude · {workspace.model_for('Claude')}" in shown
