"""Auto mode (issue 27 §3), whole turns through the real SDKs against the demo simulator: an
agreeing question is answered in two calls (plus the map's); a disagreeing one (the demo's HERON
trigger) escalates to the full All turn, which reuses the two answers and says why."""

from __future__ import annotations

import json

from ensemble_tui.core.chat.modes import Mode, Style, parse_run_mode
from ensemble_tui.core.records.compare import compare_rounds
from ensemble_tui.core.records.report import report_markdown
from ensemble_tui.core.turn.auto import auto_outcome
from ensemble_tui.core.turn.events import ReplyCommitted
from ensemble_tui.simulator.demo import role_of
from ensemble_tui.simulator.demo_claims import MAP_MARK

SIM_OF = {"ChatGPT": "openai", "Claude": "anthropic", "Gemini": "gemini"}
MESSAGES = {"openai": "input", "anthropic": "messages", "gemini": "contents"}
NAMES = ("ChatGPT", "Claude", "Gemini", "OpenAI", "Anthropic", "Google")
AGREEING = "What does the paper say about anonymity?"
DISAGREEING = "What does the HERON-7 benchmark show?"


async def run(engine, text, style=Style.AGGREGATE):
    events = [event async for event in engine.run(Mode.AUTO, text, style)]
    (reply,) = [event for event in events if isinstance(event, ReplyCommitted)]
    return reply


def first_proposals(demo, provider):
    """The provider's requests that asked for a first answer (not a revision, map or review)."""
    return [call for call in getattr(demo, SIM_OF[provider]).calls if role_of(call.text) == "proposal"]


def last_record(workspace):
    return workspace.archive.turns(workspace.session.id)[-1].record


def test_auto_is_a_mode_ask_and_the_keys_can_name():
    assert parse_run_mode("auto") is Mode.AUTO and Mode.AUTO.is_multi


async def test_an_agreeing_question_is_answered_in_two_calls_plus_the_map(engine, workspace, demo):
    reply = await run(engine, AGREEING)

    record = last_record(workspace)
    why = (auto_outcome(record), [(c.provider, c.role, c.outcome) for c in record.calls])
    assert reply.message.provenance.line.startswith("auto · 2 calls · agreed"), why
    calls = last_record(workspace).calls
    assert [(c.provider, c.role) for c in calls if c.role != "mapper"] == [("ChatGPT", "proposer")] * 2
    assert len([c for c in calls if c.role == "mapper"]) == 1
    assert not demo.anthropic.calls and not first_proposals(demo, "Gemini")  # nobody else was asked
    assert reply.message.provenance.line.startswith("auto · 2 calls · agreed")
    assert reply.claims is not None and reply.claims.count("contradiction") == 0  # the pair's map, shown
    assert "ChatGPT #2" in reply.claims.claims[0].stances  # the second sample, named for the user
    assert "Simulated ChatGPT reply" in reply.text  # one of the two answers is the reply
    report = report_markdown(last_record(workspace))
    assert "## Auto" in report and "agreed" in report


async def test_a_disagreeing_question_escalates_and_reuses_the_two_answers(engine, workspace, demo):
    reply = await run(engine, DISAGREEING)

    line = reply.message.provenance.line
    assert line.startswith("auto · escalated: 1 disputed claim")
    assert "3 of 3 proposals" in line
    # ChatGPT answered twice (the pair) and was never asked for a first answer again; the others once
    assert len(first_proposals(demo, "ChatGPT")) == 2
    assert len(first_proposals(demo, "Claude")) == 1 and len(first_proposals(demo, "Gemini")) == 1
    record = last_record(workspace)
    outcome = auto_outcome(record)
    assert outcome is not None and not outcome.agreed and outcome.reused == ("ChatGPT",)
    report = report_markdown(record)
    assert "Auto escalated: 1 disputed claim" in report and "Set aside by auto" in report
    # The first round the aggregator read: the three models, ChatGPT's being its correct sample
    (first, *_) = compare_rounds(record)
    assert [p.author for p in first.proposals] == ["ChatGPT", "Claude", "Gemini"]
    assert "answered 87 correctly" in first.proposals[0].text
    assert reply.claims is None or reply.claims.count("contradiction") == 1  # the full turn's own map


async def test_two_models_pair_the_two_cheapest_and_both_answers_are_reused(engine, workspace, demo):
    workspace.update_settings(auto_pair="two-models")
    reply = await run(engine, DISAGREEING)

    assert reply.message.provenance.line.startswith("auto · escalated: 1 disputed claim")
    # ChatGPT and Gemini (equal prices, the cheapest two) answered first; nobody answered twice
    assert [len(first_proposals(demo, name)) for name in ("ChatGPT", "Claude", "Gemini")] == [1, 1, 1]
    outcome = auto_outcome(last_record(workspace))
    assert outcome is not None and set(outcome.reused) == {"ChatGPT", "Gemini"}


async def test_the_cheapest_strong_model_answers(engine, workspace, demo):
    workspace.update_settings(strong=["Claude", "Gemini"])  # Claude's Sonnet costs more than Gemini's Pro
    reply = await run(engine, AGREEING)

    assert reply.message.provenance.line == "auto · 2 calls · agreed · gemini-3.1-pro-preview ×2"
    assert len(first_proposals(demo, "Gemini")) == 2 and not first_proposals(demo, "ChatGPT")


async def test_the_pairs_map_request_is_anonymous(engine, demo):
    await run(engine, DISAGREEING)

    (pair_map, *_) = [call for call in demo.openai.calls if MAP_MARK in call.text]
    sent = json.dumps(pair_map.body[MESSAGES["openai"]])
    assert "answered 92 correctly" in sent and "answered 87 correctly" in sent  # the two samples
    assert not [name for name in NAMES if name.lower() in sent.lower()] and "#2" not in sent


async def test_without_the_map_auto_cannot_tell_agreement_and_runs_all_at_once(engine, workspace, demo):
    workspace.update_settings(claim_map=False)
    reply = await run(engine, AGREEING)

    assert reply.message.provenance.line.startswith("auto · escalated: no map")
    assert [len(first_proposals(demo, name)) for name in ("ChatGPT", "Claude", "Gemini")] == [1, 1, 1]
