"""The Chat pane through Pilot: sending, keys, redo, cancel, failures and the budget stop."""

from __future__ import annotations

import html

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.provider import ErrorKind, ProviderError
from ensemble_tui.ui.chat_log.chat_view import ChatEntry, ChatNotice, VoteNotice
from ensemble_tui.ui.widgets.action_bar import ModeButton, button_id
from tests.support import Hang, fatal, transient
from tests.ui.conftest import SIZE, settle, type_text, wait_until


def entries(app) -> list[tuple[str, str]]:
    return [(entry.message.role, entry.message.text) for entry in app.query(ChatEntry)]


def notices(app, kind: str | None = None) -> list[str]:
    return [str(n.content) for n in app.query(ChatNotice) if kind is None or n.kind == kind]


def status_text(app) -> str:
    return app.main.chat.status.shown.status.plain


def screen_text(app) -> str:
    return html.unescape(app.export_screenshot()).replace("\u00a0", " ")


async def test_enter_sends_with_all_at_first_and_shows_the_reply(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"Why?")
        await pilot.press("enter")
        await settle(pilot)
        assert entries(app) == [("user", "Why?"), ("assistant", "ChatGPT answer")]
        assert {label for label, p in chatty.items() if p.calls_as("proposer")} == {"ChatGPT", "Claude", "Gemini"}
        assert workspace.session.last_mode == "all"
        assert app.main.chat.input.text == ""
        assert status_text(app).startswith("Reply complete (All")
        assert app.notifier.sent and "All replied" in app.notifier.sent[0]
        assert app.query_one(f"#{button_id(Mode.ALL)}", ModeButton).has_class("-default")


@pytest.mark.parametrize(
    ("key", "mode"),
    [("f12", Mode.CHATGPT), ("f2", Mode.CLAUDE), ("f3", Mode.GEMINI), ("f4", Mode.CHATGPT_GEMINI), ("f5", Mode.ALL)],
)
async def test_each_function_key_sends_in_its_mode_and_becomes_the_default(workspace, chatty, make_app, key, mode):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "First question")
        await pilot.press(key)
        await settle(pilot)
        asked = {label for label, p in chatty.items() if p.calls_as("proposer")}
        assert asked == set(mode.providers)
        assert workspace.session.last_mode == mode.value
        await type_text(pilot, "Second question")
        await pilot.press("enter")
        await settle(pilot)
        assert workspace.session.last_mode == mode.value
        assert [m.role for m in workspace.session.history] == ["user", "assistant"] * 2


async def test_action_buttons_send_too(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Via the button")
        await pilot.click(f"#{button_id(Mode.GEMINI)}")
        await settle(pilot)
        assert chatty["Gemini"].calls and not chatty["ChatGPT"].calls
        assert app.focused is app.main.chat.input


async def test_ctrl_j_and_shift_enter_insert_a_newline_instead_of_sending(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c")
        await pilot.pause()
        assert app.main.chat.input.text == "a\nb\nc"
        assert app.main.turns.turn is None and not workspace.session.history
        await pilot.press("enter")
        await settle(pilot)
        assert workspace.session.history[0].text == "a\nb\nc"


async def test_empty_enter_redoes_the_last_reply(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["single"] = []
    chatty["ChatGPT"].scripts["proposer"] = ["first reply", "second reply"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Question")
        await pilot.press("f12")
        await settle(pilot)
        assert entries(app)[-1] == ("assistant", "first reply")
        await pilot.press("enter")  # empty input: redo in the last mode
        await settle(pilot)
        assert entries(app) == [("user", "Question"), ("assistant", "second reply")]
        assert [m.text for m in workspace.session.history] == ["Question", "second reply"]
        transcript = workspace.store.transcript_path(workspace.session).read_text()
        assert "second reply" in transcript and "first reply" not in transcript


async def test_a_cancelled_redo_gives_the_reply_it_withdrew_back(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["single"] = []
    chatty["ChatGPT"].scripts["proposer"] = ["first reply", Hang()]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Question")
        await pilot.press("f12")
        await settle(pilot)
        await pilot.press("enter")  # empty input: redo, which takes the reply off the chat meanwhile
        await wait_until(pilot, lambda: app.main.turns.turn is not None and entries(app) == [("user", "Question")])
        await pilot.press("escape")
        await settle(pilot)
        assert entries(app) == [("user", "Question"), ("assistant", "first reply")]
        assert [m.text for m in workspace.session.history] == ["Question", "first reply"]
        assert app.main.chat.input.text == ""  # a redo's question stays in the chat, not in the box


async def test_escape_cancels_and_puts_the_question_back(workspace, chatty, make_app):
    chatty["Claude"].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Slow question")
        await pilot.press("f2")
        await wait_until(pilot, lambda: bool(entries(app)))
        assert app.query_one(f"#{button_id(Mode.CLAUDE)}", ModeButton).has_class("-running")
        await pilot.press("escape")
        await settle(pilot)
        assert app.main.chat.input.text == "Slow question"
        assert workspace.session.history == [] and entries(app) == []
        assert status_text(app).startswith("Cancelled")
        assert not app.query_one(f"#{button_id(Mode.CLAUDE)}", ModeButton).has_class("-running")


async def test_pressing_the_active_action_again_cancels(workspace, chatty, make_app):
    chatty["Gemini"].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Slow question")
        await pilot.press("f3")
        await wait_until(pilot, lambda: bool(entries(app)))
        await pilot.click(f"#{button_id(Mode.GEMINI)}")
        await settle(pilot)
        assert app.main.chat.input.text == "Slow question"
        assert workspace.session.history == []


async def test_another_mode_key_or_button_during_a_run_starts_nothing_and_says_so(workspace, chatty, make_app):
    chatty["Gemini"].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Which mode?")
        await pilot.press("f3")
        await wait_until(pilot, lambda: bool(entries(app)))
        await type_text(pilot, "A new question")
        await pilot.press("f12")
        await pilot.press("f5")
        await pilot.click(f"#{button_id(Mode.CLAUDE)}")
        await wait_until(pilot, lambda: len(app._notifications) >= 3)
        toasts = [notification.message for notification in app._notifications]
        assert toasts.count("A reply is under way: Esc cancels it.") == 3
        assert (
            app.main.turns.turn is not None and app.main.turns.turn.mode is Mode.GEMINI
        )  # the run goes on, calls kept
        assert not chatty["ChatGPT"].calls and not chatty["Claude"].calls
        assert entries(app) == [("user", "Which mode?")]
        assert app.main.chat.input.text == "A new question"  # the new text is neither sent nor lost
        await pilot.press("f3")  # the active mode's key cancels
        await wait_until(pilot, lambda: app.main.turns.turn is None)
        assert entries(app) == [] and app.main.chat.input.text.startswith("Which mode?")


async def test_enter_during_a_run_does_not_cancel_it(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "One")
        await pilot.press("f12")
        await wait_until(pilot, lambda: bool(entries(app)))
        await type_text(pilot, "Next")
        await pilot.press("enter")
        await pilot.pause()
        assert app.main.turns.turn is not None and app.main.chat.input.text == "Next"
        await pilot.press("escape")
        await settle(pilot)
        assert app.main.chat.input.text == "One\n\nNext"


async def test_a_failing_provider_shows_one_line_and_keeps_the_input(workspace, chatty, make_app):
    chatty["Claude"].scripts["proposer"] = [fatal("Claude")]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Will fail")
        await pilot.press("f2")
        await settle(pilot)
        assert notices(app, "error") == ["✖ Claude: API key rejected (401)"]
        assert entries(app) == [("user", "Will fail")]
        assert workspace.session.pending_input == "Will fail"
        assert "retries" in status_text(app)
        assert app.is_running
        # An empty Enter retries the same question.
        await pilot.press("enter")
        await settle(pilot)
        assert entries(app) == [("user", "Will fail"), ("assistant", "Claude answer")]


async def test_a_skipped_proposer_is_a_warning_line_and_the_reply_still_comes(workspace, chatty, make_app):
    chatty["Gemini"].scripts["proposer"] = [ProviderError(ErrorKind.FATAL, "Gemini: model retired (404)")]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Three minds")
        await pilot.press("f5")
        await settle(pilot)
        assert any("Gemini: model retired (404)" in line for line in notices(app, "warning"))
        assert entries(app)[-1][0] == "assistant"


async def test_the_budget_stop_is_one_line_in_the_chat(workspace, chatty, make_app):
    workspace.update_settings(budget_usd=0.0001)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Too expensive")
        await pilot.press("f5")
        await settle(pilot)
        (line,) = notices(app, "error")
        assert line.startswith("✖ Budget stop:") and "\n" not in line
        assert not any(p.calls for p in chatty.values())


async def test_retries_do_not_block_the_ui_and_status_tracks_progress(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["proposer"] = [transient("ChatGPT"), "after a retry"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Flaky")
        await pilot.press("f12")
        await settle(pilot)
        assert entries(app)[-1] == ("assistant", "after a retry")


async def test_nothing_to_redo_yet(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await settle(pilot)
        assert notices(app, "error") == ["✖ Nothing to redo yet - type a question first."]


async def test_cost_is_shown_and_updated(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert app.main.chat.status.shown.cost.plain == "Session cost $0.0000"
        await type_text(pilot, "Costs")
        await pilot.press("f12")
        await settle(pilot)
        assert workspace.session.cost_usd > 0
        assert app.main.chat.status.shown.cost.plain != "Session cost $0.0000"


class BrokenEngine:
    """An engine whose run dies outside the turn's own error handling."""

    running = False

    async def run(self, mode, text, style=None, reuse=None, reused_from=0):
        raise RuntimeError("boom [bold]")
        yield  # pragma: no cover - makes this an async generator

    async def cancel(self) -> None:
        return None


async def test_an_unexpected_worker_error_is_one_line_and_the_app_lives_on(workspace, chatty, make_app):
    app = make_app(engine=BrokenEngine())
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Anything")
        await pilot.press("enter")
        await settle(pilot)
        assert notices(app, "error") == ["✖ Unexpected error (RuntimeError: boom [bold]) - the chat is saved."]
        assert app.is_running and app.main.turns.turn is None
        assert status_text(app) == "Stopped by an unexpected error."
        assert app.main.chat.input.text == "Anything"


class StyledEngine:
    """Plays the events of a council turn, plus one event type this app has never heard of."""

    running = False

    async def run(self, mode, text, style=None, reuse=None, reused_from=0):
        from ensemble_tui.core.chat.modes import Style
        from ensemble_tui.core.turn.events import InputRecorded, ReviewReceived, VoteCounted, VoteRow

        yield InputRecorded(mode, text, redo=False)
        yield ReviewReceived("ChatGPT", "1. A", accepted=True)
        yield ReviewReceived("Gemini", "garbled", accepted=False, problem="no FINAL RANKING list")
        yield ReviewReceived("[b]Claude", "1. B", accepted=True)
        yield VoteCounted(
            Style.DEBATE, (VoteRow("Claude", 1, 4.0, 2, medal="gold"), VoteRow("[red]ChatGPT", 2, 2.0, 0))
        )
        yield object()  # a future event type

    async def cancel(self) -> None:
        return None


async def test_reviews_fill_one_line_the_tally_is_a_table_and_unknown_events_are_ignored(workspace, chatty, make_app):
    app = make_app(engine=StyledEngine())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f9")  # debate
        await type_text(pilot, "Debate it")
        await pilot.press("f5")
        await settle(pilot)
        (line,) = [n for n in app.query(ChatNotice) if str(n.content).startswith("⚠ Rankings:")]
        assert str(line.content) == (
            "⚠ Rankings: ChatGPT ✓ · Gemini ✗ unreadable, left out (no FINAL RANKING list) · [b]Claude ✓"
        )
        assert line.kind == "warning"
        (table,) = app.query(VoteNotice)
        shown = screen_text(app)
        assert "Debate: final ranking" in shown and "🥇 gold" in shown and "[red]ChatGPT" in shown
        assert table.region.y > line.region.y
        # an event outside the closed TurnEvent union is not silently ignored (issue 31): one line says so
        assert notices(app, "error") == ["✖ An event the app does not know was not shown (object)."] and app.is_running
