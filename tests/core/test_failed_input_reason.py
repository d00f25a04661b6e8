"""A question whose turn failed keeps its one-line reason with it, stored with the chat: the
next start shows it again. Models never see it, and a retry that is answered clears it."""

from __future__ import annotations

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.provider import ErrorKind, ProviderError
from ensemble_tui.core.turn.events import ReplyCommitted, RunFailed
from tests.core.helpers import of_type, restored_session, run_turn


async def test_a_failed_question_keeps_its_reason_after_a_restart(workspace, scripted, make_engine, home):
    workspace.update_settings(budget_usd=0.0001)
    events = await run_turn(make_engine(), Mode.ALL, "Too expensive")
    reason = of_type(events, RunFailed)[0].message
    assert reason.startswith("Budget stop:")
    (question,) = restored_session(home).history
    assert (question.role, question.text, question.failure) == ("user", "Too expensive", reason)


async def test_a_retry_that_is_answered_clears_the_reason_and_models_never_see_it(
    workspace, scripted, make_engine, home
):
    scripted["Claude"].scripts["proposer"] = [ProviderError(ErrorKind.FATAL, "Claude: model retired (404)"), "Now."]
    engine = make_engine()
    await run_turn(engine, Mode.CLAUDE, "Why?")
    assert restored_session(home).history[-1].failure == "Claude: model retired (404)"
    events = await run_turn(engine, Mode.CLAUDE, "")  # an empty send retries the question
    assert of_type(events, ReplyCommitted)[0].text == "Now."
    assert [(m.role, m.text, m.failure) for m in restored_session(home).history] == [
        ("user", "Why?", None),
        ("assistant", "Now.", None),
    ]
    sent = scripted["Claude"].calls[-1].messages
    assert [turn.text for turn in sent] == ["Why?"]  # the reason is not part of the question
    assert "retired" not in repr(sent)


async def test_a_failed_redo_leaves_the_reply_and_marks_nothing(workspace, scripted, make_engine, home):
    # Issue 34 §1: a failed redo no longer takes the reply away and leaves its question to retry.
    scripted["Gemini"].scripts["proposer"] = ["First.", ProviderError(ErrorKind.FATAL, "Gemini: quota exhausted")]
    engine = make_engine()
    await run_turn(engine, Mode.GEMINI, "Q")
    await run_turn(engine, Mode.GEMINI, "")  # redo, which fails
    assert [(m.role, m.text, m.failure) for m in restored_session(home).history] == [
        ("user", "Q", None),
        ("assistant", "First.", None),
    ]
