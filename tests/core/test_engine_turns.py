"""Whole turns through the engine with scripted providers: single, multi, resynthesis, redo."""

from __future__ import annotations

from pathlib import Path

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.provider import Reply, Usage
from ensemble_tui.core.turn.events import (
    CostUpdated,
    InputRecorded,
    ProposalReceived,
    ReplyCommitted,
    Resubmitted,
    RunFailed,
    StatusChanged,
)
from tests.core.helpers import of_type, restored_session, run_turn


async def test_single_model_turn_updates_chat_outputs_transcript_and_cost(workspace, scripted, make_engine, sample_pdf):
    workspace.select_pdf(sample_pdf)
    scripted["Claude"].scripts["proposer"] = [
        Reply("It is **Lemma 2**.", Usage(input_tokens=10_000, output_tokens=1_000))
    ]
    events = await run_turn(make_engine(), Mode.CLAUDE, "Which lemma carries the proof?")

    assert isinstance(events[0], InputRecorded) and events[0].query == "Which lemma carries the proof?"
    assert of_type(events, ReplyCommitted)[0].text == "It is **Lemma 2**."
    (call,) = scripted["Claude"].calls
    assert call.system == workspace.prompts.proposer_system("Claude")
    assert call.pdf == sample_pdf.resolve()
    assert [turn.role for turn in call.messages] == ["user"]
    assert call.messages[-1].text == "Which lemma carries the proof?"
    assert call.temperature is None  # Claude models take no temperature
    assert scripted["ChatGPT"].calls == [] and scripted["Gemini"].calls == []

    session = workspace.session
    assert [(m.role, m.text) for m in session.history] == [
        ("user", "Which lemma carries the proof?"),
        ("assistant", "It is **Lemma 2**."),
    ]
    assert session.last_outputs["Claude"].query == "Which lemma carries the proof?"
    expected_cost = (10_000 * 3.0 + 1_000 * 15.0) / 1e6
    assert abs(session.cost_usd - expected_cost) < 1e-9
    assert of_type(events, CostUpdated)[-1].session_cost_usd == session.cost_usd

    transcript = (workspace.paths.chats / f"{session.id}.md").read_text()
    assert "Which lemma carries the proof?" in transcript and "It is **Lemma 2**." in transcript
    restored = restored_session(workspace.paths.root)
    assert restored.pdf_path == str(sample_pdf.resolve())
    assert restored.history[-1].text == "It is **Lemma 2**."
    logged = workspace.archive.turns(session.id)[-1].record
    assert logged.outcome == "final" and logged.calls[0].provider == "Claude"


async def test_history_is_sent_as_alternating_turns_on_the_next_turn(workspace, scripted, make_engine):
    scripted["ChatGPT"].scripts["proposer"] = ["First answer.", "Second answer."]
    engine = make_engine()
    await run_turn(engine, Mode.CHATGPT, "Q1")
    await run_turn(engine, Mode.CHATGPT, "Q2")
    second = scripted["ChatGPT"].calls[1]
    assert [(t.role, t.text) for t in second.messages] == [
        ("user", "Q1"),
        ("assistant", "First answer."),
        ("user", "Q2"),
    ]


async def test_temperature_follows_the_model_capability(workspace, scripted, make_engine):
    scripted["ChatGPT"].default = "ok"
    engine = make_engine()
    await run_turn(engine, Mode.CHATGPT, "the default model first")
    workspace.update_settings(models={**workspace.settings.models, "ChatGPT": "gpt-4.1"}, temperature=1.1)
    await run_turn(engine, Mode.CHATGPT, "then gpt-4.1")
    first, second = scripted["ChatGPT"].calls
    assert (first.model, first.temperature) == ("gpt-6.1-sol", None)  # it takes no temperature
    assert (second.model, second.temperature) == ("gpt-4.1", 1.1)


# How each scripted model signs its proposals: no model's name, which the packet would redact (issue 34 §4).
SIGN = {"ChatGPT": "Ada", "Claude": "Bea", "Gemini": "Cy"}


async def test_all_mode_collects_proposals_and_aggregates_anonymously(workspace, scripted, make_engine):
    for label in ("ChatGPT", "Claude", "Gemini"):
        scripted[label].scripts["proposer"] = [f"Proposal written by {SIGN[label]}."]
    scripted["Gemini"].scripts["aggregator"] = ["FINAL REPLY:\nThe combined answer."]
    workspace.update_settings(aggregator="Gemini")
    events = await run_turn(make_engine(), Mode.ALL, "Explain Figure 2")

    statuses = [event.text for event in of_type(events, StatusChanged)]
    assert statuses[0] == "Sending requests for proposals…"
    assert "Collecting replies… (3/3)" in statuses
    assert statuses[-1] == "Aggregating replies, iteration 1…"
    assert of_type(events, StatusChanged)[-1].answered == ("ChatGPT", "Claude", "Gemini") or set(
        of_type(events, StatusChanged)[-1].answered
    ) == {"ChatGPT", "Claude", "Gemini"}
    assert {event.provider for event in of_type(events, ProposalReceived)} == {"ChatGPT", "Claude", "Gemini"}

    (aggregation,) = scripted["Gemini"].calls_as("aggregator")
    assert aggregation.system == workspace.prompts.aggregator_system()
    packet_turn = aggregation.messages[-1].text
    assert packet_turn.startswith("Explain Figure 2")
    assert workspace.prompts.aggregator_user(forced=False) in packet_turn
    for number in (1, 2, 3):
        assert f"# Proposed Reply {number}:" in packet_turn
    for label in ("ChatGPT", "Claude", "Gemini"):
        assert f"Proposal written by {SIGN[label]}." in packet_turn
        assert f"{label}\n" not in packet_turn and f"# {label}" not in packet_turn

    assert of_type(events, ReplyCommitted)[0].text == "The combined answer."
    assert workspace.session.history[-1].text == "The combined answer."
    assert workspace.session.last_outputs["Gemini"].text == "Proposal written by Cy."
    assert workspace.session.resubmissions == []


async def test_chatgpt_and_gemini_mode_uses_only_those_proposers(workspace, scripted, make_engine):
    scripted["ChatGPT"].scripts["proposer"] = ["A"]
    scripted["Gemini"].scripts["proposer"] = ["B"]
    scripted["ChatGPT"].scripts["aggregator"] = ["FINAL REPLY:\nAB"]
    await run_turn(make_engine(), Mode.CHATGPT_GEMINI, "q")
    assert scripted["Claude"].calls == []
    assert workspace.session.history[-1].text == "AB"


async def test_a_turn_that_needs_all_five_passes_forces_a_final_reply(workspace, scripted, make_engine):
    for label in ("ChatGPT", "Claude", "Gemini"):
        scripted[label].default = f"{label} view"
    scripted["ChatGPT"].scripts["aggregator"] = [
        f"REQUEST SYNTHESIS FROM PROPOSERS\nRemark round {n}" for n in range(1, 6)
    ]
    events = await run_turn(make_engine(), Mode.ALL, "Hard question")

    aggregations = scripted["ChatGPT"].calls_as("aggregator")
    assert len(aggregations) == 5
    forced = workspace.prompts.aggregator_user(forced=True)
    normal = workspace.prompts.aggregator_user(forced=False)
    assert all(normal in call.messages[-1].text for call in aggregations[:4])
    assert forced in aggregations[4].messages[-1].text and normal not in aggregations[4].messages[-1].text
    iterations = [e.text for e in of_type(events, StatusChanged) if e.text.startswith("Aggregating")]
    assert iterations == [f"Aggregating replies, iteration {n}…" for n in range(1, 6)]

    resubmissions = of_type(events, Resubmitted)
    assert [r.iteration for r in resubmissions] == [1, 2, 3, 4]
    assert [r.iteration for r in workspace.session.resubmissions] == [1, 2, 3, 4]
    assert "Remark round 2" in workspace.session.resubmissions[1].text
    assert "# Proposed Reply 1:" in workspace.session.resubmissions[0].text
    # The fifth output is final whatever it says; only the sentinel line is dropped.
    assert of_type(events, ReplyCommitted)[0].text == "Remark round 5"


async def test_synthesis_requests_carry_the_remarks_and_each_proposers_own_number(workspace, scripted, make_engine):
    for label in ("ChatGPT", "Claude", "Gemini"):
        scripted[label].scripts["proposer"] = [f"first by {SIGN[label]}"]
        scripted[label].scripts["synthesis"] = [f"second by {SIGN[label]}"]
    scripted["Claude"].scripts["aggregator"] = [
        "REQUEST SYNTHESIS FROM PROPOSERS\nReply 2 ignores Table 1.",
        "FINAL REPLY:\nSettled.",
    ]
    workspace.update_settings(aggregator="Claude")
    await run_turn(make_engine(), Mode.ALL, "Is the bound tight?")

    first_packet = scripted["Claude"].calls_as("aggregator")[0].messages[-1].text
    for label in ("ChatGPT", "Claude", "Gemini"):
        (synthesis,) = scripted[label].calls_as("synthesis")
        text = synthesis.messages[-1].text
        assert synthesis.system == workspace.prompts.proposer_system(label)
        assert workspace.prompts.synthesis_user(label) in text
        assert "Reply 2 ignores Table 1." in text
        number = int(text.rsplit("Your own proposal was Proposed Reply ", 1)[1].rstrip("."))
        assert f"# Proposed Reply {number}:\nfirst by {SIGN[label]}" in first_packet
        assert text.startswith("Is the bound tight?")
    second_packet = scripted["Claude"].calls_as("aggregator")[1].messages[-1].text
    assert all(f"second by {SIGN[label]}" in second_packet for label in ("ChatGPT", "Claude", "Gemini"))
    assert workspace.session.last_outputs["Gemini"].text == "second by Cy"
    assert workspace.session.history[-1].text == "Settled."


async def test_redo_replaces_the_last_reply_in_chat_and_transcript(workspace, scripted, make_engine):
    scripted["ChatGPT"].scripts["proposer"] = ["Weak answer."]
    scripted["Gemini"].scripts["proposer"] = ["Better answer."]
    engine = make_engine()
    await run_turn(engine, Mode.CHATGPT, "What is shown in Table 1?")
    events = await run_turn(engine, Mode.GEMINI, "")

    first = events[0]
    assert isinstance(first, InputRecorded)
    assert (first.mode, first.query, first.redo) == (Mode.GEMINI, "What is shown in Table 1?", True)
    assert first.message is None and first.withdrawn is not None and first.withdrawn.text == "Weak answer."
    assert scripted["Gemini"].calls[0].messages[-1].text == "What is shown in Table 1?"
    assert [(m.role, m.text) for m in workspace.session.history] == [
        ("user", "What is shown in Table 1?"),
        ("assistant", "Better answer."),
    ]
    transcript = (workspace.paths.chats / f"{workspace.session.id}.md").read_text()
    assert "Weak answer." not in transcript and "Better answer." in transcript
    assert transcript.count("What is shown in Table 1?") == 1


async def test_redo_with_an_empty_chat_says_what_to_do(workspace, scripted, make_engine):
    events = await run_turn(make_engine(), Mode.ALL, "   ")
    assert of_type(events, RunFailed)[0].message == "Nothing to redo yet - type a question first."
    assert scripted["ChatGPT"].calls == []


async def test_model_text_is_stripped_of_control_characters_everywhere(workspace, scripted, make_engine):
    scripted["ChatGPT"].scripts["proposer"] = ["Safe\x1b]52;c;aGk=\x07 text\x1b[2J"]
    events = await run_turn(make_engine(), Mode.CHATGPT, "q")
    final = of_type(events, ReplyCommitted)[0].text
    assert "\x1b" not in final and "\x07" not in final
    transcript = (workspace.paths.chats / f"{workspace.session.id}.md").read_bytes()
    assert b"\x1b" not in transcript and b"\x1b" not in workspace.paths.session_file.read_bytes()


async def test_sources_are_kept_with_the_reply(workspace, scripted, make_engine):
    scripted["ChatGPT"].scripts["proposer"] = [
        Reply("See the erratum.", Usage(), ("https://example.org/erratum", "javascript:alert(1)"))
    ]
    events = await run_turn(make_engine(), Mode.CHATGPT, "q")
    assert of_type(events, ReplyCommitted)[0].sources == ("https://example.org/erratum",)
    assert workspace.session.history[-1].sources == ["https://example.org/erratum"]
    assert "https://example.org/erratum" in (workspace.paths.chats / f"{workspace.session.id}.md").read_text()


async def test_session_is_restored_by_the_next_start(home: Path, workspace, scripted, make_engine):
    from ensemble_tui.core.workspace import Workspace

    scripted["Claude"].scripts["proposer"] = ["Kept."]
    await run_turn(make_engine(), Mode.CLAUDE, "Remember me")
    restored = Workspace.open(home)
    assert restored.session.id == workspace.session.id
    assert [m.text for m in restored.session.history] == ["Remember me", "Kept."]
    assert restored.session.last_outputs["Claude"].text == "Kept."
    assert restored.session.cost_usd == workspace.session.cost_usd


async def test_new_chat_starts_a_fresh_session_and_transcript(workspace, scripted, make_engine):
    scripted["Claude"].scripts["proposer"] = ["One.", "Two."]
    engine = make_engine()
    await run_turn(engine, Mode.CLAUDE, "first chat")
    old_id = workspace.session.id
    workspace.new_chat()
    await run_turn(engine, Mode.CLAUDE, "second chat")
    assert workspace.session.id != old_id
    assert "first chat" in (workspace.paths.chats / f"{old_id}.md").read_text()
    new_transcript = (workspace.paths.chats / f"{workspace.session.id}.md").read_text()
    assert "second chat" in new_transcript and "first chat" not in new_transcript
    assert scripted["Claude"].calls[1].messages[-1].text == "second chat"
    assert len(scripted["Claude"].calls[1].messages) == 1


async def test_the_run_record_lists_answers_in_the_order_the_models_were_asked_not_as_they_came_back(
    workspace, scripted, make_engine
):
    from ensemble_tui.core.records.compare import compare_rounds
    from tests.support import Slow

    scripted["ChatGPT"].scripts["proposer"] = [Slow(Reply("late A", Usage(input_tokens=10, output_tokens=10)), 0.1)]
    scripted["Claude"].scripts["proposer"] = [Slow(Reply("late B", Usage(input_tokens=10, output_tokens=10)), 0.05)]
    scripted["Gemini"].scripts["proposer"] = ["early C"]
    scripted["ChatGPT"].scripts["aggregator"] = ["FINAL REPLY:\nmerged"]
    events = await run_turn(make_engine(), Mode.ALL, "What is new?")

    arrived = [e.provider for e in of_type(events, ProposalReceived)]
    assert arrived == ["Gemini", "Claude", "ChatGPT"]  # the panes fill as answers come back
    record = workspace.archive.turns(workspace.session.id)[-1].record
    (first,) = compare_rounds(record)
    assert [p.author for p in first.proposals] == ["ChatGPT", "Claude", "Gemini"]


async def test_proposals_in_hand_are_not_asked_again_and_a_missing_one_is(workspace, scripted, make_engine):
    from ensemble_tui.core.chat.modes import Style

    scripted["Claude"].scripts["proposer"] = ["fresh B"]
    scripted["ChatGPT"].scripts["aggregator"] = ["FINAL REPLY:\nmerged"]
    engine = make_engine()
    reuse = {"ChatGPT": "kept A", "Gemini": "kept C"}
    events = [e async for e in engine.run(Mode.ALL, "What is new?", Style.AGGREGATE, reuse=reuse)]

    assert of_type(events, ReplyCommitted)[0].text == "merged"
    assert scripted["ChatGPT"].calls_as("proposer") == [] and scripted["Gemini"].calls == []
    assert len(scripted["Claude"].calls_as("proposer")) == 1
    packet = scripted["ChatGPT"].calls_as("aggregator")[0].messages[-1].text
    assert all(text in packet for text in ("kept A", "fresh B", "kept C"))
    record = workspace.archive.turns(workspace.session.id)[-1].record
    answers = [(a.author, a.text, a.round) for a in record.artifacts if a.kind == "answer"]
    assert answers == [("ChatGPT", "kept A", 1), ("Claude", "fresh B", 1), ("Gemini", "kept C", 1)]
