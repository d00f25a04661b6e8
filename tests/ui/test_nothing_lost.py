"""Work is never lost: a quit during a run asks first and gives the question back at the next
start; text typed and not sent survives a quit and a crash, kept a moment behind the typing."""

from __future__ import annotations

import json
import threading

from ensemble_tui.core.store.drafts import DraftStore
from ensemble_tui.ui.drafts import DRAFT_DELAY_S
from ensemble_tui.ui.screens.quit_confirm import QuitConfirm
from tests.core.helpers import restored_session
from tests.support import Hang
from tests.ui.conftest import SIZE, restarted_app, shows_pending_input, type_text, wait_until


async def test_ctrl_q_during_a_run_asks_then_quits_and_the_question_is_back_next_start(
    workspace, chatty, make_app, home
):
    chatty["Gemini"].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "What does Lemma 3 need?")
        await pilot.press("f3")
        await wait_until(pilot, lambda: shows_pending_input(app))
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitConfirm))
        await pilot.press("escape")  # keep waiting: the run goes on
        await wait_until(pilot, lambda: not isinstance(app.screen, QuitConfirm))
        assert app.is_running and app.main.turns.turn is not None
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitConfirm))
        await pilot.press("ctrl+q")  # again: confirmed
        await wait_until(pilot, lambda: not app.is_running)
    assert restored_session(home).history == []  # nothing of the run is kept, as with Esc

    again = restarted_app(home)
    async with again.run_test(size=SIZE) as pilot:
        assert again.main.chat.input.text == "What does Lemma 3 need?"  # ready to send
        assert again.main.chat.log_view.items == []


async def test_unsent_text_survives_a_crash_and_a_quit_and_is_saved_once_not_per_key(
    workspace, chatty, make_app, home, monkeypatch
):
    saves: list[str] = []
    real_save = DraftStore.save

    def counting_save(self, chat_id, draft):
        saves.append(draft.text)
        real_save(self, chat_id, draft)

    monkeypatch.setattr(DraftStore, "save", counting_save)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "A half-written question about Theorem 2")
        await pilot.pause(DRAFT_DELAY_S + 0.4)
        # On disk now, as a crash would leave it: a second behind the typing at most.
        draft_file = home / "Drafts" / f"{app.main.chat_id}.json"
        assert json.loads(draft_file.read_text(encoding="utf-8"))["text"] == "A half-written question about Theorem 2"
        assert len(saves) == 1  # 40 keys, one save
    crashed = restarted_app(home)
    async with crashed.run_test(size=SIZE) as pilot:
        assert crashed.main.chat.input.text == "A half-written question about Theorem 2"
        await type_text(pilot, " and Lemma 4")
        await pilot.press("ctrl+q")  # a quit keeps what was typed since the last save
        await wait_until(pilot, lambda: not crashed.is_running)
    final = restarted_app(home)
    async with final.run_test(size=SIZE):
        assert final.main.chat.input.text == "A half-written question about Theorem 2 and Lemma 4"


async def test_a_sent_question_is_kept_until_its_turn_is_saved_then_the_draft_is_cleared(
    workspace, chatty, make_app, home
):
    chatty["Claude"].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Sent, then the process dies")
        await pilot.press("f2")
        await wait_until(pilot, lambda: shows_pending_input(app))
        # A crash now: the question is on disk although its turn never ended.
        assert DraftStore(home / "Drafts").load(app.main.chat_id).question == "Sent, then the process dies"
        await pilot.press("f2")  # cancel; the question goes back into the box
        await wait_until(pilot, lambda: app.main.turns.turn is None)
        chatty["Claude"].scripts["proposer"] = ["An answer"]
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.main.turns.turn is None and len(app.main.chat.log_view.items) == 2)
        await pilot.pause(DRAFT_DELAY_S + 0.4)
        assert DraftStore(home / "Drafts").load(app.main.chat_id).empty  # answered: nothing left to give back


async def test_keys_typed_while_the_draft_is_written_show_at_once(workspace, chatty, make_app, home, monkeypatch):
    """A slow disk under the draft's save does not hold up the keys typed meanwhile (bench 4.d)."""
    started, released, outcomes = threading.Event(), threading.Event(), []
    real_save = DraftStore.save

    def slow_save(self, chat_id, draft):
        started.set()
        outcomes.append("written" if released.wait(5) else "the keys waited for the disk")
        real_save(self, chat_id, draft)

    monkeypatch.setattr(DraftStore, "save", slow_save)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "First")
        await wait_until(pilot, started.is_set)  # the draft's save is under way, on a slow disk
        await type_text(pilot, " more")
        assert app.main.chat.input.text == "First more"
        released.set()
        draft_file = home / "Drafts" / f"{app.main.chat_id}.json"
        await wait_until(pilot, draft_file.exists)
        assert json.loads(draft_file.read_text(encoding="utf-8"))["text"].startswith("First")
    assert outcomes[0] == "written"
