"""Retries, failures, cancellation and the budget guard, through scripted providers."""

from __future__ import annotations

import asyncio

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.provider import ErrorKind, ProviderError, Reply, Usage
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import (
    InputRecorded,
    Notice,
    ProposerFailed,
    ReplyCommitted,
    RunFailed,
    StatusChanged,
)
from ensemble_tui.core.turn.retry import RetryPolicy
from tests.core.helpers import of_type, restored_session, run_turn
from tests.support import Hang, Slow, fatal, overloaded, transient


def script_all_proposers(scripted, text: str = "proposal") -> None:
    for label in ("ChatGPT", "Claude", "Gemini"):
        scripted[label].scripts["proposer"] = [f"{text} from {label}"]


async def test_single_model_retries_five_times_then_fails_and_keeps_the_input(workspace, scripted, make_engine, sleeps):
    scripted["Gemini"].scripts["proposer"] = [transient("Gemini") for _ in range(6)]
    events = await run_turn(make_engine(), Mode.GEMINI, "Why?")
    assert len(scripted["Gemini"].calls) == 6
    assert len(sleeps.delays) == 5
    assert of_type(events, RunFailed)[0].message == "Gemini: server error (500)"
    assert [(m.role, m.text) for m in workspace.session.history] == [("user", "Why?")]


async def test_backoff_grows_and_honours_a_short_retry_after(workspace, scripted, make_engine, sleeps):
    limited = ProviderError(ErrorKind.RATE_LIMITED, "ChatGPT: rate limited (429)", retry_after=7.0)
    scripted["ChatGPT"].scripts["proposer"] = [transient("ChatGPT"), transient("ChatGPT"), limited, "ok"]
    events = await run_turn(make_engine(), Mode.CHATGPT, "q")
    assert of_type(events, ReplyCommitted)
    first, second, third = sleeps.delays
    assert 0.5 <= first <= 1.0 and 1.0 <= second <= 2.0
    assert third >= 7.0


async def test_a_long_retry_after_fails_at_once_instead_of_stalling(workspace, scripted, make_engine, sleeps):
    scripted["ChatGPT"].scripts["proposer"] = [
        ProviderError(ErrorKind.RATE_LIMITED, "ChatGPT: rate limited (429), retry in 3600 s", retry_after=3600)
    ]
    events = await run_turn(make_engine(), Mode.CHATGPT, "q")
    assert len(scripted["ChatGPT"].calls) == 1 and sleeps.delays == []
    assert "rate limited" in of_type(events, RunFailed)[0].message


async def test_errors_retrying_cannot_fix_are_not_retried(workspace, scripted, make_engine, sleeps):
    scripted["Claude"].scripts["proposer"] = [fatal("Claude")]
    events = await run_turn(make_engine(), Mode.CLAUDE, "q")
    assert len(scripted["Claude"].calls) == 1 and sleeps.delays == []
    assert of_type(events, RunFailed)[0].message == "Claude: API key rejected (401)"


async def test_a_proposer_that_always_fails_is_skipped_and_never_enters_the_packet(workspace, scripted, make_engine):
    script_all_proposers(scripted)
    scripted["Claude"].scripts["proposer"] = [
        ProviderError(ErrorKind.TRANSIENT, "Claude: SECRET-FAILURE-TEXT (503)") for _ in range(6)
    ]
    scripted["ChatGPT"].scripts["aggregator"] = ["FINAL REPLY:\nDone with two."]
    events = await run_turn(make_engine(), Mode.ALL, "q")

    assert len(scripted["Claude"].calls) == 6  # first try + 5 retries
    assert of_type(events, ProposerFailed)[0].provider == "Claude"
    (aggregation,) = scripted["ChatGPT"].calls_as("aggregator")
    packet = aggregation.messages[-1].text
    assert "SECRET-FAILURE-TEXT" not in packet and "# Proposed Reply 3:" not in packet
    assert "# Proposed Reply 2:" in packet
    assert of_type(events, ReplyCommitted)[0].text == "Done with two."
    assert "Claude" not in workspace.session.last_outputs
    assert of_type(events, StatusChanged)[-2].text == "Collecting replies… (3/3)"


async def test_the_turn_fails_when_every_proposer_fails(workspace, scripted, make_engine):
    for label in ("ChatGPT", "Claude", "Gemini"):
        scripted[label].scripts["proposer"] = [fatal(label)]
    events = await run_turn(make_engine(), Mode.ALL, "q")
    assert of_type(events, RunFailed)[0].message.startswith("Every proposer failed")
    assert scripted["ChatGPT"].calls_as("aggregator") == []
    assert workspace.session.pending_input == "q"


@pytest.mark.parametrize(
    ("error", "attempts"),
    [(transient("ChatGPT"), 2), (overloaded("ChatGPT"), 4)],
    ids=["transient-1-retry", "overloaded-3-retries"],
)
async def test_aggregator_retries_once_or_three_times_on_overload(workspace, scripted, make_engine, error, attempts):
    script_all_proposers(scripted)
    scripted["ChatGPT"].scripts["aggregator"] = [error for _ in range(6)]
    events = await run_turn(make_engine(), Mode.ALL, "Question that fails")
    assert len(scripted["ChatGPT"].calls_as("aggregator")) == attempts
    assert of_type(events, RunFailed)[0].message == error.message
    session = workspace.session
    assert session.pending_input == "Question that fails"
    assert session.last_outputs["Gemini"].text == "proposal from Gemini"  # proposals that ran are kept


async def test_a_failed_turn_is_retried_by_an_empty_send(workspace, scripted, make_engine):
    scripted["Claude"].scripts["proposer"] = [fatal("Claude"), "Now it works."]
    engine = make_engine()
    await run_turn(engine, Mode.CLAUDE, "Try me")
    events = await run_turn(engine, Mode.CLAUDE, "")
    assert of_type(events, ReplyCommitted)[0].text == "Now it works."
    assert [(m.role, m.text) for m in workspace.session.history] == [("user", "Try me"), ("assistant", "Now it works.")]


async def test_an_unanswered_input_is_not_sent_to_models_later(workspace, scripted, make_engine):
    scripted["Claude"].scripts["proposer"] = [fatal("Claude"), "Answer two."]
    engine = make_engine()
    await run_turn(engine, Mode.CLAUDE, "lost question")
    await run_turn(engine, Mode.CLAUDE, "new question")
    assert [t.text for t in scripted["Claude"].calls[1].messages] == ["new question"]
    assert [m.text for m in workspace.session.history] == ["lost question", "new question", "Answer two."]


async def test_cancelled_run_keeps_nothing(workspace, scripted, make_engine):
    scripted["ChatGPT"].scripts["proposer"] = ["Kept answer."]
    engine = make_engine()
    await run_turn(engine, Mode.CHATGPT, "kept question")
    cost_before = restored_session(workspace.paths.root).cost_usd
    for label in ("ChatGPT", "Claude", "Gemini"):
        scripted[label].scripts["proposer"] = ["fast proposal"] if label != "Gemini" else [Hang()]

    seen: list[object] = []

    async def consume() -> None:
        async for event in engine.run(Mode.ALL, "cancelled question"):
            seen.append(event)

    task = asyncio.create_task(consume())
    for _ in range(100):
        await asyncio.sleep(0.01)
        if len(workspace.session.history) == 3 and any(
            isinstance(e, StatusChanged) and e.text.startswith("Collecting replies… (2/3)") for e in seen
        ):
            break
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)

    assert not engine.running
    assert [m.text for m in workspace.session.history] == ["kept question", "Kept answer."]
    assert "fast proposal" not in str(workspace.session.last_outputs)
    restored = restored_session(workspace.paths.root)
    assert [m.text for m in restored.history] == ["kept question", "Kept answer."]
    assert any(isinstance(e, StatusChanged) and e.text == "Collecting replies… (2/3)" for e in seen)
    assert restored.cost_usd > cost_before  # the cost of the two answered calls is kept
    transcript = (workspace.paths.chats / f"{workspace.session.id}.md").read_text()
    assert "cancelled question" not in transcript


async def test_starting_a_run_cancels_the_one_in_flight(workspace, scripted, make_engine):
    scripted["Gemini"].scripts["proposer"] = [Hang()]
    scripted["Claude"].scripts["proposer"] = ["Second run wins."]
    engine = make_engine()
    first = engine.run(Mode.GEMINI, "first")
    assert (await anext(first)).query == "first"
    events = await run_turn(engine, Mode.CLAUDE, "second")
    with pytest.raises(StopAsyncIteration):
        await anext(first)
    assert of_type(events, ReplyCommitted)[0].text == "Second run wins."
    assert [m.text for m in workspace.session.history] == ["second", "Second run wins."]


async def test_a_hanging_call_times_out_and_is_retried(workspace, scripted, make_engine):
    scripted["ChatGPT"].scripts["proposer"] = [Hang(), "After the timeout."]
    engine: Engine = make_engine(timeout_s=0.05)
    events = await asyncio.wait_for(run_turn(engine, Mode.CHATGPT, "q"), timeout=10)
    assert of_type(events, ReplyCommitted)[0].text == "After the timeout."
    assert len(scripted["ChatGPT"].calls) == 2


async def test_budget_stop_happens_before_the_call_that_would_pass_the_cap(workspace, scripted, make_engine):
    workspace.update_settings(budget_usd=0.01)
    scripted["ChatGPT"].scripts["proposer"] = [Reply("pricey", Usage(input_tokens=1000, output_tokens=2000))]
    engine = make_engine()
    events = await run_turn(engine, Mode.CHATGPT, "first")  # not even 4,000 output tokens fit: refused
    message = of_type(events, RunFailed)[0].message
    assert message.startswith("Budget stop") and "$0.01" in message and "new chat" in message
    assert scripted["ChatGPT"].calls == []
    assert workspace.session.pending_input == "first"


async def test_budget_counts_calls_in_flight_and_waits_for_them(workspace, scripted, make_engine):
    # Issue 34 §2: a call kept out only by calls in flight waits for them to settle (it was refused).
    workspace.update_settings(budget_usd=0.12)
    for label in ("ChatGPT", "Claude", "Gemini"):
        scripted[label].scripts["proposer"] = [Slow(Reply("slow", Usage(input_tokens=10, output_tokens=10)), 0.05)]
    scripted["ChatGPT"].scripts["aggregator"] = [Reply("FINAL REPLY:\nall three", Usage(output_tokens=10))]
    events = await run_turn(make_engine(), Mode.ALL, "q")
    # Three concurrent proposer estimates (~0.05 each) cannot all fit under 0.12 at once.
    assert any("waiting for calls in flight" in event.text for event in of_type(events, StatusChanged))
    assert of_type(events, ReplyCommitted) and not of_type(events, RunFailed)
    assert sum(len(p.calls_as("proposer")) for p in scripted.values()) == 3
    assert workspace.session.cost_usd <= 0.12


async def test_vanished_pdf_stops_the_turn_with_a_clear_line(workspace, scripted, make_engine, sample_pdf):
    workspace.select_pdf(sample_pdf)
    sample_pdf.unlink()
    events = await run_turn(make_engine(), Mode.CHATGPT, "q")
    message = of_type(events, RunFailed)[0].message
    assert "no longer exists" in message and "paper.pdf" in message
    assert scripted["ChatGPT"].calls == []


async def test_missing_prompt_file_stops_before_any_call(workspace, scripted, make_engine):
    (workspace.paths.prompts / "SynthesizeFromProposalsPrompts" / "Gemini.txt").unlink()
    script_all_proposers(scripted)
    events = await run_turn(make_engine(), Mode.ALL, "q")
    assert "SynthesizeFromProposalsPrompts/Gemini.txt" in of_type(events, RunFailed)[0].message
    assert all(p.calls == [] for p in scripted.values())


async def test_unavailable_provider_blocks_its_single_mode_but_not_all(workspace, make_engine):
    from tests.support import ScriptedProvider

    providers = {label: ScriptedProvider(label, default=f"{label} says hi") for label in ("ChatGPT", "Gemini")}
    workspace.attach_providers(providers, {"Claude": "Claude is unavailable: set ANTHROPIC_API_KEY"})
    engine = make_engine()
    events = await run_turn(engine, Mode.CLAUDE, "q")
    assert of_type(events, RunFailed)[0].message == "Claude is unavailable: set ANTHROPIC_API_KEY"
    assert not of_type(events, InputRecorded) and workspace.session.history == []  # the chat as it was
    events = await run_turn(engine, Mode.ALL, "q again")
    assert of_type(events, ProposerFailed)[0].message == "Claude is unavailable: set ANTHROPIC_API_KEY"
    assert of_type(events, ReplyCommitted)


async def test_retry_policy_counts() -> None:
    policy = RetryPolicy()
    assert policy.retries_allowed("proposer", transient("x")) == 5
    assert policy.retries_allowed("single", overloaded("x")) == 5
    assert policy.retries_allowed("aggregator", transient("x")) == 1
    assert policy.retries_allowed("aggregator", overloaded("x")) == 3
    assert policy.retries_allowed("proposer", fatal("x")) == 0


async def test_a_cancelled_redo_gives_the_old_reply_back(workspace, scripted, make_engine):
    scripted["ChatGPT"].scripts["proposer"] = ["The original reply."]
    scripted["Gemini"].scripts["proposer"] = [Hang()]
    engine = make_engine()
    await run_turn(engine, Mode.CHATGPT, "Question")
    redo = engine.run(Mode.GEMINI, "")
    started = await anext(redo)
    assert started.redo and started.withdrawn.text == "The original reply."  # shown gone while the redo runs
    await redo.aclose()
    assert [(m.role, m.text) for m in workspace.session.history] == [
        ("user", "Question"),
        ("assistant", "The original reply."),
    ]
    transcript = (workspace.paths.chats / f"{workspace.session.id}.md").read_text()
    assert "The original reply." in transcript


async def test_user_input_is_stored_without_control_characters(workspace, scripted, make_engine):
    scripted["Claude"].scripts["proposer"] = ["ok"]
    await run_turn(make_engine(), Mode.CLAUDE, "pasted \x1b[31mred\x1b[0m text\x07")
    assert workspace.session.history[0].text == "pasted [31mred[0m text"
    assert scripted["Claude"].calls[0].messages[-1].text == "pasted [31mred[0m text"


async def test_a_refused_call_is_still_counted_in_the_session_cost(workspace, scripted, make_engine):
    billed = Usage(input_tokens=100_000, output_tokens=500)
    scripted["Claude"].scripts["proposer"] = [
        ProviderError(ErrorKind.FATAL, "Claude: declined to answer (refusal)", usage=billed)
    ]
    events = await run_turn(make_engine(), Mode.CLAUDE, "q")
    assert of_type(events, RunFailed)[0].message == "Claude: declined to answer (refusal)"
    expected = (100_000 * 3.0 + 500 * 15.0) / 1e6
    assert abs(workspace.session.cost_usd - expected) < 1e-9
    (turn,) = workspace.archive.turns(workspace.session.id)
    assert turn.record.calls[0].cost_usd == workspace.session.cost_usd


async def test_a_disk_that_refuses_the_saves_costs_a_notice_not_the_turn(workspace, scripted, make_engine, monkeypatch):
    import ensemble_tui.core.store.session_store as session_module

    def disk_full(path, _text):
        raise OSError(28, "No space left on device", str(path))

    scripted["ChatGPT"].scripts["proposer"] = ["the answer"]
    monkeypatch.setattr(session_module, "atomic_write_text", disk_full)
    events = await run_turn(make_engine(), Mode.CHATGPT, "Will it save?")
    notices = [event.message for event in of_type(events, Notice)]
    # One write path per turn: one line, however many of its files the disk refused.
    assert len(notices) == 1 and all("No space left on device" in text and "free space" in text for text in notices)
    assert of_type(events, ReplyCommitted)[0].text == "the answer"
    assert [(m.role, m.text) for m in workspace.session.history] == [
        ("user", "Will it save?"),
        ("assistant", "the answer"),
    ]
