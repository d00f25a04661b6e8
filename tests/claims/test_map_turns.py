"""Whole turns with the claim map, through the real SDKs against the demo simulator (its
scripted map reads the mapper's own request): the mapper's request is anonymous, history
included; the map comes back through each provider's structured output with the letters mapped
back to the right models; an unreadable map gets one repair and is then left out; it is never sent to a model later."""

from __future__ import annotations

import json

import pytest

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.turn.events import ClaimsLeftOut, ClaimsMapped, Notice, ReplyCommitted
from ensemble_tui.simulator import ScriptedReply
from ensemble_tui.simulator.demo_claims import MAP_MARK

SIM_OF = {"ChatGPT": "openai", "Claude": "anthropic", "Gemini": "gemini"}
NAMES = ("ChatGPT", "Claude", "Gemini", "OpenAI", "Anthropic", "Google")
MESSAGES = {"openai": "input", "anthropic": "messages", "gemini": "contents"}


async def run(engine, mode, text, style=Style.AGGREGATE):
    return [event async for event in engine.run(mode, text, style)]


def reply_of(events) -> ReplyCommitted:
    (reply,) = [event for event in events if isinstance(event, ReplyCommitted)]
    return reply


def map_of(events):
    """The turn's claim map: carried by the reply if it was drawn by then, else announced after it."""
    late = [event.claims for event in events if isinstance(event, ClaimsMapped)]
    return late[0] if late else reply_of(events).claims


def map_calls(demo, mapper):
    return [call for call in getattr(demo, SIM_OF[mapper]).calls if MAP_MARK in call.text]


def last_record(workspace):
    return workspace.archive.turns(workspace.session.id)[-1].record


@pytest.mark.parametrize("mapper", ["ChatGPT", "Claude", "Gemini"])
async def test_the_map_is_anonymous_parsed_from_structured_output_and_names_the_right_models(
    engine, workspace, demo, mapper
):
    workspace.update_settings(claim_mapper=mapper)
    await run(engine, Mode.CLAUDE, "First question: who wrote this note?")  # history whose reply names Claude
    claims = map_of(await run(engine, Mode.ALL, "What does the paper report?"))

    assert claims is not None and claims.mapper == mapper
    disputed = claims.disputed_first()[0]
    assert disputed.kind == "contradiction" and "87" in disputed.text
    # ChatGPT quoted the paper, Claude misquoted it, Gemini said nothing of it
    assert disputed.stances["ChatGPT"].stance == "supports"
    assert disputed.stances["ChatGPT"].evidence.marker == "✓ p. 1"
    assert disputed.stances["Claude"].stance == "contradicts"
    assert disputed.stances["Claude"].evidence.marker == "✗ not in the paper"
    assert disputed.stances["Gemini"].stance == "silent"
    assert claims.confidence == "medium"
    assert claims.summary == "2 agreed · 1 disputed · 1 unique · confidence medium"

    final_map = map_calls(demo, mapper)[-1]
    sent = json.dumps(final_map.body[MESSAGES[SIM_OF[mapper]]])
    assert "First question: who wrote this note?" in sent  # the history is there...
    assert "Simulated" in sent and not [name for name in NAMES if name.lower() in sent.lower()]  # ...anonymous


async def test_the_map_starts_in_the_final_passs_wave_and_is_kept_in_the_record(engine, workspace):
    await run(engine, Mode.ALL, "What does the paper report?")
    calls = last_record(workspace).calls
    final_aggregator = [call for call in calls if call.role == "aggregator"][-1]
    mapper = [call for call in calls if call.role == "mapper"][-1]
    assert abs(mapper.started_s - final_aggregator.started_s) < 0.2  # same wave: no extra one
    assert mapper.outcome == "ok" and mapper.provider == "ChatGPT"  # the aggregator's model by default
    kinds = [artifact.kind for artifact in last_record(workspace).artifacts]
    assert "claims" in kinds


async def test_an_unreadable_map_gets_one_repair_then_is_left_out(engine, workspace, demo):
    demo.openai.push(
        ScriptedReply("Here are the claims, in prose.", match=MAP_MARK),
        ScriptedReply("Still prose.", match="not the JSON claim map"),
    )
    events = await run(engine, Mode.ALL, "What does the paper report?", Style.VOTE)
    assert map_of(events) is None
    notes = [event.message for event in events if isinstance(event, ClaimsLeftOut)]
    assert len(notes) == 1 and "could not be read" in notes[0] and notes[0].startswith("Claim map left out:")
    assert not [event for event in events if isinstance(event, Notice) and "Claim map" in event.message]
    mapper_calls = [call for call in last_record(workspace).calls if call.role == "mapper"]
    assert len(mapper_calls) == 2  # the map and its one repair


async def test_the_map_is_never_sent_to_a_model_in_a_later_turn(engine, workspace, demo):
    first = map_of(await run(engine, Mode.ALL, "What does the paper report?", Style.VOTE))
    claim_texts = [claim.text for claim in first.claims]
    for script in demo.scripts.values():
        script.clear()
    await run(engine, Mode.ALL, "A follow-up?", Style.VOTE)
    sent = [call.text for script in demo.scripts.values() for call in script.calls]
    assert sent and not [text for text in claim_texts if any(text in body for body in sent)]


async def test_single_model_turns_and_a_switched_off_map_have_none(engine, workspace, demo):
    assert map_of(await run(engine, Mode.GEMINI, "Alone?")) is None
    workspace.update_settings(claim_map=False)
    assert map_of(await run(engine, Mode.ALL, "Together?", Style.VOTE)) is None
    assert not [call for call in last_record(workspace).calls if call.role == "mapper"]
