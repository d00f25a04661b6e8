"""The reply is never held back by the claim map, and a late map is not lost: through the real
SDKs against the demo simulator, with the mapper's answer made slow."""

from __future__ import annotations

import dataclasses
import io
import time

from ensemble_tui.commands.ask_turn import MAPPING, run_ask
from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.claims.model import claims_of
from ensemble_tui.core.turn.events import ClaimsMapped, ReplyCommitted
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.simulator.demo_claims import MAP_MARK
from tests.claims.test_map_turns import last_record

SLOW_S = 2.0
SUMMARY = "2 agreed · 1 disputed · 1 unique · confidence medium"


def slow_map(script, delay_s: float = SLOW_S) -> None:
    """The demo's own map (right for whatever letters), sent `delay_s` late."""
    respond = script.default

    def slowly(request):
        reply = respond(request)
        return dataclasses.replace(reply, latency_s=delay_s) if MAP_MARK in request.text else reply

    script.default = slowly


def last_turn_id(workspace: Workspace) -> int:
    return workspace.archive.turns(workspace.session.id)[-1].id


def stored_cost(workspace: Workspace) -> float:
    return Workspace.open(workspace.paths.root).session.cost_usd


async def test_a_slow_map_never_delays_the_reply_and_is_kept_and_shown_when_it_comes(engine, workspace, demo):
    slow_map(demo.openai)  # ChatGPT draws the map (the aggregator's model)
    started = time.monotonic()
    seen: list[tuple[float, object]] = []
    async for event in engine.run(Mode.ALL, "What does the paper report?", Style.VOTE):
        if isinstance(event, ReplyCommitted):
            # committed before it is announced: the chat on disk has the reply, the run no map yet
            assert Workspace.open(workspace.paths.root).session.history[-1].text == event.text
            assert claims_of(last_record(workspace).artifacts) is None
        seen.append((time.monotonic() - started, event))
    (reply_at, reply), *_ = [(at, e) for at, e in seen if isinstance(e, ReplyCommitted)]
    (mapped_at, mapped), *_ = [(at, e) for at, e in seen if isinstance(e, ClaimsMapped)]
    assert reply.claims is None and reply.map_pending
    # the reply came first, without waiting for the map (drawn SLOW_S after it started, with the
    # reply's last pass): measured between the events, as the machine may be slow to start a turn
    assert mapped_at - reply_at > SLOW_S / 2
    assert mapped.claims.summary == SUMMARY and mapped.turn_id == reply.turn_id == last_turn_id(workspace)

    record = last_record(workspace)  # the late map is attached to the stored run...
    assert claims_of(record.artifacts).summary == SUMMARY
    mapper = [call for call in record.calls if call.role == "mapper"]
    assert mapper and mapper[-1].outcome == "ok"
    # ...and what its call cost is in the run's and the chat's stored cost
    assert abs(record.turn_cost_usd - sum(call.cost_usd for call in record.calls)) < 1e-9
    assert abs(stored_cost(workspace) - workspace.session.cost_usd) < 1e-9
    assert abs(workspace.session.cost_usd - record.turn_cost_usd) < 1e-9  # the chat's only turn


async def test_a_superseded_turns_map_is_dropped_and_its_cost_kept(engine, workspace, demo):
    slow_map(demo.openai, 5.0)
    events = []
    async for event in engine.run(Mode.ALL, "What does the paper report?", Style.VOTE):
        events.append(event)
        if isinstance(event, ReplyCommitted):
            assert event.map_pending
            break  # the consumer moves on (a new turn starts): the run, and its map, are cancelled
    await engine.cancel()
    assert not [event for event in events if isinstance(event, ClaimsMapped)]
    record = last_record(workspace)
    assert claims_of(record.artifacts) is None  # dropped
    (mapper,) = [call for call in record.calls if call.role == "mapper"]
    assert mapper.outcome == "cancelled" and mapper.cost_usd > 0  # billed at its worst case, and kept
    assert abs(stored_cost(workspace) - sum(call.cost_usd for call in record.calls)) < 1e-9
    assert workspace.session.history[-1].role == "assistant"  # the reply stays


async def test_a_new_turn_cancels_the_last_ones_late_map(engine, workspace, demo):
    slow_map(demo.openai, 5.0)
    first = engine.run(Mode.ALL, "What does the paper report?", Style.VOTE)
    async for event in first:
        if isinstance(event, ReplyCommitted):
            break
    second = [event async for event in engine.run(Mode.GEMINI, "And alone?")]
    assert any(isinstance(event, ReplyCommitted) for event in second)
    await first.aclose()
    records = workspace.archive.turns(workspace.session.id)
    assert claims_of(records[0].record.artifacts) is None  # the first turn's map was dropped, not awaited
    (mapper,) = [call for call in records[0].record.calls if call.role == "mapper"]
    assert mapper.outcome == "cancelled"
    assert len(workspace.session.history) == 4


class Interleaved(io.StringIO):
    """stdout and stderr as one log, in the order they were written."""

    def __init__(self, log: list[tuple[str, str]], name: str) -> None:
        super().__init__()
        self.log, self.name = log, name

    def write(self, text: str) -> int:
        if text.strip():
            self.log.append((self.name, text.strip()))
        return super().write(text)


async def test_ask_prints_the_reply_first_then_waits_for_the_map(engine, workspace, demo):
    slow_map(demo.openai)
    log: list[tuple[str, str]] = []
    out, err = Interleaved(log, "out"), Interleaved(log, "err")
    code = await run_ask(engine, Mode.ALL, Style.VOTE, "What does the paper report?", out, err)
    assert code == 0
    order = [name if name == "out" else text for name, text in log]
    reply_at = order.index("out")
    waiting_at = order.index(MAPPING)
    summary_at = order.index(f"claims: {SUMMARY}")
    assert reply_at < waiting_at < summary_at
    assert order[-1] == f"claims: {SUMMARY}"


async def test_ask_json_waits_for_a_late_map(engine, workspace, demo):
    import json

    slow_map(demo.openai)
    out, err = io.StringIO(), io.StringIO()
    code = await run_ask(engine, Mode.ALL, Style.VOTE, "What does the paper report?", out, err, as_json=True)
    assert code == 0
    turn = json.loads(out.getvalue())
    assert turn["claims_summary"] == SUMMARY
    assert "mapper" in {call["role"] for call in turn["costs"]["calls"]}
    calls_usd = sum(call["cost_usd"] for call in turn["costs"]["calls"])  # each rounded to 6 places, as the total
    assert abs(turn["costs"]["turn_usd"] - calls_usd) < 1e-5


async def test_a_map_drawn_with_the_reply_comes_with_it(engine, workspace, demo):
    """The mapper answers at once (the aggregator is slow): the reply carries the map, no wait, no late event."""
    respond = demo.openai.default

    def slow_aggregator(request):
        reply = respond(request)
        return reply if MAP_MARK in request.text else dataclasses.replace(reply, latency_s=0.5)

    demo.openai.default = slow_aggregator
    events = [event async for event in engine.run(Mode.ALL, "What does the paper report?", Style.VOTE)]
    (reply,) = [event for event in events if isinstance(event, ReplyCommitted)]
    assert reply.claims is not None and not reply.map_pending
    assert not [event for event in events if isinstance(event, ClaimsMapped)]


async def test_an_earlier_passs_map_is_never_announced(engine, workspace, demo):
    """The demo's aggregator asks for one more round: the first pass's map is superseded. No status
    line says "Claims mapped" for it (or at all: the turn's map comes with, or after, its reply)."""
    from ensemble_tui.core.turn.events import StatusChanged
    from tests.claims.test_map_turns import map_calls, map_of

    events = [event async for event in engine.run(Mode.ALL, "What does the paper report?")]
    assert len(map_calls(demo, "ChatGPT")) == 2  # one per aggregator pass
    assert not [e for e in events if isinstance(e, StatusChanged) and "Claims mapped" in e.text]
    assert map_of(events).summary == SUMMARY
    maps = [a for a in last_record(workspace).artifacts if a.kind == "claims"]
    assert [bool(a.data.get("superseded")) for a in maps] == [True, False]


async def test_the_handle_says_whether_a_turn_runs_through_its_late_map(engine, workspace, demo):
    """One answer to "is a turn running?": the handle's phase, RUNNING, then MAPPING while the map
    is drawn after the reply, then DONE; the map's cost and record are stored in the same commit
    path as the reply (two commits, the map's cost and record in one)."""
    import threading

    from ensemble_tui.core.turn.handle import TurnPhase

    slow_map(demo.openai)
    commits: list[str] = []
    store = workspace.store
    commit_turn = store.commit_turn

    def recording(change, **kwargs):
        commits.append(threading.current_thread().name)  # the store's thread (a worker)
        return commit_turn(change, **kwargs)

    store.commit_turn = recording  # type: ignore[method-assign]
    handle = engine.start(Mode.ALL, "What does the paper report?", Style.VOTE)
    assert handle.phase is TurnPhase.RUNNING and engine.running
    phases = []
    async for event in handle.events:
        phases.append((type(event).__name__, handle.phase))
    assert ("ReplyCommitted", TurnPhase.MAPPING) in phases and phases[-1] == ("ClaimsMapped", TurnPhase.MAPPING)
    assert handle.phase is TurnPhase.DONE and not engine.running
    assert len(commits) == 2  # the reply's commit, then the late map's (cost and record together)
    assert Workspace.open(workspace.paths.root).session.cost_usd == workspace.session.cost_usd


def test_the_session_store_is_committed_from_one_place():
    """`commit_turn` has one caller (core/turn/commit.py), used by the turn and its late map."""
    from pathlib import Path

    import ensemble_tui

    root = Path(ensemble_tui.__file__).parent
    callers = sorted(
        str(path.relative_to(root)) for path in root.rglob("*.py") if ".commit_turn(" in path.read_text()
    ) + sorted(str(path.relative_to(root)) for path in root.rglob("*.py") if "store.commit_turn," in path.read_text())
    assert callers == ["core/turn/commit.py"]
