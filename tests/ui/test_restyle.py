"""The same turn in another style, in the app: the palette's entries and Compare's `r`, through
Pilot. The redo makes no proposer call and its reply replaces the last one."""

from __future__ import annotations

from textual.command import CommandPalette

from ensemble_tui.core.chat.modes import Style
from ensemble_tui.core.records.restyle import SINGLE
from ensemble_tui.ui.screens.compare import CompareScreen
from ensemble_tui.ui.screens.restyle_picker import RestylePicker
from tests.ui.conftest import SIZE, settle, type_text, wait_until
from tests.ui.test_styles import forget_calls, roles, well_formed_reviews


async def ask(pilot, text: str, key: str = "f5") -> None:
    await type_text(pilot, text)
    await pilot.press(key)
    await settle(pilot)


def palette_titles(app) -> list[str]:
    return [command.title for command in app.get_system_commands(app.screen)]


def chat(app) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in app.workspace.session.history]


async def test_the_palette_restyles_the_last_turn_without_asking_a_proposer(workspace, chatty, make_app):
    well_formed_reviews(chatty)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert not [t for t in palette_titles(app) if t.startswith("Same turn")]  # no turn yet
        await ask(pilot, "What is new?")  # All, in the aggregator style
        assert chat(app)[-1] == ("assistant", "ChatGPT answer")
        titles = [t for t in palette_titles(app) if t.startswith("Same turn")]
        assert titles == ["Same turn as Council", "Same turn as Critique & vote", "Same turn as Debate"]
        forget_calls(chatty)

        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"same turn as council")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main.turns.turn is None and len(chatty["ChatGPT"].calls) > 0)
        await settle(pilot)

        assert "proposer" not in roles(chatty) and {"ranking", "chairman"} <= roles(chatty)
        assert chat(app) == [("user", "What is new?"), ("assistant", "ChatGPT answer")]  # one reply, replaced
        reply = app.workspace.session.history[-1]
        assert reply.provenance is not None and "Council" in reply.provenance.line
        assert reply.provenance.line.endswith("restyled")
        # Issue 35: a restyle does not switch the chat's style; the reply's provenance names it.
        assert app.main.choices.style is Style.AGGREGATE and app.workspace.session.last_style == "aggregate"
        record = app.workspace.archive.turns(app.workspace.session.id)[-1].record
        assert (record.style, record.calls_saved, record.reused_from) == ("council", 3, 1)
        titles = [t for t in palette_titles(app) if t.startswith("Same turn")]
        assert "Same turn as Council" not in titles and "Same turn as Aggregator" in titles


async def test_compare_r_closes_compare_and_runs_the_style_picked(workspace, chatty, make_app):
    well_formed_reviews(chatty)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "What is new?")
        forget_calls(chatty)
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, RestylePicker))
        picker = app.screen
        assert [s.value for s in picker.choices] == ["council", "vote", "debate"]  # not the turn's own
        await pilot.press("down", "enter")  # the second: Critique & vote
        await wait_until(pilot, lambda: app.main.turns.turn is None and len(chatty["Claude"].calls) > 0)
        await settle(pilot)

        assert not isinstance(app.screen, (CompareScreen, RestylePicker))
        assert "proposer" not in roles(chatty) and "critique" in roles(chatty)
        assert [role for role, _ in chat(app)] == ["user", "assistant"]
        record = app.workspace.archive.turns(app.workspace.session.id)[-1].record
        assert (record.style, record.calls_saved, record.reused_from) == ("vote", 3, 1)


async def test_a_single_model_turn_cannot_be_restyled_and_says_why(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "What is new?", key="f2")  # Claude alone
        assert not [t for t in palette_titles(app) if t.startswith("Same turn")]
        forget_calls(chatty)
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))
        await pilot.press("r")
        await wait_until(pilot, lambda: not isinstance(app.screen, CompareScreen))
        await pilot.pause()
        assert app.main.chat.status.text == SINGLE.format(mode="Claude")
        assert not isinstance(app.screen, RestylePicker)
        assert all(not provider.calls for provider in chatty.values())
