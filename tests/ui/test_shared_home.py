"""The app and `ensemble-tui ask` on one home: the app takes in the turn that `ask` added to its
open chat before its own next turn, and appends its own after it."""

from __future__ import annotations

from pathlib import Path

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.workspace import Workspace
from tests.core.helpers import restored_session
from tests.test_two_processes import finish, reply_text, start_ask
from tests.ui.conftest import SIZE, settle, type_text, wait_until


async def test_the_app_shows_a_turn_that_ask_added_and_appends_its_own_after_it(
    home: Path, workspace: Workspace, chatty, make_app
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "From the app, first")
        await pilot.press("f12")
        await wait_until(pilot, lambda: app.main.turns.turn is None and len(app.main.chat.log_view.items) == 2)

        code, out, err = finish(start_ask(home, "From ask, in another terminal"))
        assert code == 0, err

        await type_text(pilot, "From the app, second")
        await pilot.press("f12")
        await wait_until(
            pilot, lambda: app.main.turns.turn is None and len(app.main.chat.log_view.items) == 6, timeout=30
        )
        await settle(pilot)
        shown = [(m.role, m.text) for m in app.main.chat.log_view.items]
        assert shown == [
            ("user", "From the app, first"),
            ("assistant", "ChatGPT answer"),
            ("user", "From ask, in another terminal"),
            ("assistant", reply_text(out)),
            ("user", "From the app, second"),
            ("assistant", "ChatGPT answer"),
        ]
    assert [(m.role, m.text) for m in restored_session(home).history] == shown
    assert chatty["ChatGPT"].calls[-1].messages[-3].text == "From ask, in another terminal"  # the model saw it too
    assert app.main.choices.mode == Mode.CHATGPT
