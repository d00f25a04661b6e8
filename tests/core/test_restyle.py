"""The same turn in another style: which proposals a restyle reuses, when it refuses, and a whole
restyle through the engine with scripted providers (no proposer asked, the reply replaced, the
calls saved in the record and its report)."""

from __future__ import annotations

import pytest

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.chat.runlog import Artifact, TurnRecord
from ensemble_tui.core.chat.session import ChatMessage, SessionData
from ensemble_tui.core.records.compare import compare_rounds
from ensemble_tui.core.records.report import report_markdown
from ensemble_tui.core.records.restyle import (
    NO_PROPOSALS,
    NO_RECORD,
    NO_TURN,
    SINGLE,
    RestyleRefused,
    last_proposals,
    plan_restyle,
    restyle_source,
)
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import ReplyCommitted, RunFailed
from ensemble_tui.core.turn.failure_lines import RESTYLE_RACED
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.simulator.demo import ranking
from tests.core.helpers import of_type, run_turn
from tests.support import ScriptedProvider, fatal

NAMES = ("ChatGPT", "Claude", "Gemini", "OpenAI", "Anthropic", "Google")


def answered(question: str) -> SessionData:
    return SessionData(
        history=[ChatMessage(role="user", text=question), ChatMessage(role="assistant", text="the reply")]
    )


def run(query: str, mode: str = "all", outcome: str = "final", answers: dict[int, dict[str, str]] | None = None):
    artifacts = [
        Artifact("answer", author, text, round=number)
        for number, texts in (answers or {}).items()
        for author, text in texts.items()
    ]
    return TurnRecord(session="s", mode=mode, query=query, outcome=outcome, artifacts=artifacts)


def test_the_proposals_are_the_first_round_not_the_revised_ones() -> None:
    record = run("Q", answers={1: {"ChatGPT": "first A", "Claude": "first B"}, 2: {"ChatGPT": "revised A"}})
    assert last_proposals(record) == {"ChatGPT": "first A", "Claude": "first B"}
    assert last_proposals(run("Q")) == {}


def test_the_last_turn_is_the_newest_run_that_left_something_in_the_chat() -> None:
    first = run("Q", answers={1: {"ChatGPT": "A", "Gemini": "C"}})
    cancelled = run("Q", outcome="cancelled", answers={1: {"ChatGPT": "half"}})
    source = restyle_source(answered("Q"), [run("older", answers={1: {"Claude": "x"}}), first, cancelled])
    assert (source.mode, source.style, source.run) == (Mode.ALL, Style.AGGREGATE, 2)
    assert source.proposals == {"ChatGPT": "A", "Gemini": "C"}
    plan = plan_restyle(answered("Q"), [first], Style.DEBATE)
    assert (plan.style, plan.calls_saved, plan.reused_from) == (Style.DEBATE, 2, 1)


@pytest.mark.parametrize(
    ("session", "records", "line"),
    [
        (SessionData(), [], NO_TURN),
        (answered("Q"), [run("Q", mode="claude", answers={0: {"Claude": "alone"}})], SINGLE.format(mode="Claude")),
        (
            answered("Q"),
            [run("Q", mode="deepseek", answers={0: {"DeepSeek": "alone"}})],
            SINGLE.format(mode="deepseek"),
        ),
        (SessionData(history=[ChatMessage(role="user", text="Q")]), [run("Q", outcome="failed")], NO_PROPOSALS),
        (answered("Q"), [run("another question", answers={1: {"ChatGPT": "A"}})], NO_RECORD),
    ],
    ids=["no turn", "single model", "added provider alone", "failed before any proposal", "record not found"],
)
def test_a_restyle_is_refused_with_one_line(session, records, line) -> None:
    with pytest.raises(RestyleRefused) as refused:
        restyle_source(session, records)
    assert str(refused.value) == line and "\n" not in line


def well_formed_rankings(scripted) -> None:
    for label, provider in scripted.items():
        provider.scripts["ranking"] = [lambda request, label=label: ranking(label, request.messages[-1].text)] * 5


async def test_a_council_restyle_of_an_all_turn_asks_no_proposer(workspace, scripted, make_engine) -> None:
    for label, provider in scripted.items():
        provider.scripts["proposer"] = [f"Proposal written by model {label[0]}."]
    scripted["ChatGPT"].scripts["aggregator"] = ["FINAL REPLY:\nThe merged reply."]
    well_formed_rankings(scripted)
    scripted["ChatGPT"].scripts["chairman"] = ["The chair's reply."]
    engine = make_engine()
    await run_turn(engine, Mode.ALL, "What is new?")
    records = [stored.record for stored in workspace.archive.turns(workspace.session.id)]
    for provider in scripted.values():
        provider.calls.clear()

    plan = plan_restyle(workspace.session, records, Style.COUNCIL)
    events = [e async for e in engine.run(plan.mode, "", plan.style, plan.reuse, plan.reused_from)]

    assert of_type(events, ReplyCommitted)[0].text == "The chair's reply."
    assert all(provider.calls_as("proposer") == [] for provider in scripted.values())
    proposals = [f"Proposal written by model {label[0]}." for label in ("ChatGPT", "Claude", "Gemini")]
    for provider in scripted.values():  # every reviewer ranks the others' original proposals, unnamed
        (review,) = provider.calls_as("ranking")
        others = [text for text in proposals if not text.endswith(f"model {provider.label[0]}.")]
        assert all(text in review.messages[-1].text for text in others)
        assert not [name for name in NAMES if name in review.messages[-1].text]
    assert [(m.role, m.text) for m in workspace.session.history] == [
        ("user", "What is new?"),
        ("assistant", "The chair's reply."),
    ]
    assert workspace.session.history[-1].provenance.line.endswith(" · restyled")
    record = workspace.archive.turns(workspace.session.id)[-1].record
    assert (record.style, record.calls_saved, record.reused_from) == ("council", 3, 1)
    assert "proposer" not in {call.role for call in record.calls}
    assert "**Proposals reused:** 3 proposer calls saved (reused from run 1)" in report_markdown(record)
    assert "Proposals reused" not in report_markdown(records[0])  # an ordinary run says nothing of it


async def test_a_proposer_that_failed_in_the_turn_is_the_only_one_asked_again(workspace, scripted, make_engine):
    scripted["ChatGPT"].scripts["proposer"] = ["A"]
    scripted["Claude"].scripts["proposer"] = [fatal("Claude"), "B at last"]
    scripted["Gemini"].scripts["proposer"] = ["C"]
    scripted["ChatGPT"].scripts["aggregator"] = ["FINAL REPLY:\nfirst", "FINAL REPLY:\nsecond"]
    engine = make_engine()
    await run_turn(engine, Mode.ALL, "Q")
    records = [stored.record for stored in workspace.archive.turns(workspace.session.id)]
    plan = plan_restyle(workspace.session, records, Style.AGGREGATE)
    assert plan.reuse == {"ChatGPT": "A", "Gemini": "C"}

    await run_turn_with(engine, plan)

    assert len(scripted["Claude"].calls_as("proposer")) == 2 and len(scripted["ChatGPT"].calls_as("proposer")) == 1
    record = workspace.archive.turns(workspace.session.id)[-1].record
    assert (record.calls_saved, record.reused_from) == (2, 1)
    assert "2 proposer calls saved (reused from run 1)" in report_markdown(record)


async def run_turn_with(engine, plan) -> None:
    async for _event in engine.run(plan.mode, "", plan.style, plan.reuse, plan.reused_from):
        pass


def test_after_a_failed_redo_the_restyle_starts_from_the_run_that_wrote_the_reply():
    # Issue 34 §1: a failed redo leaves the reply in place, so its run is still the last turn's.
    wrote = run("Q", answers={1: {"ChatGPT": "A", "Claude": "B"}})
    failed_redo = run("Q", outcome="failed", answers={1: {"ChatGPT": "other"}})
    source = restyle_source(answered("Q"), [wrote, failed_redo])
    assert source.run == 1 and source.proposals == {"ChatGPT": "A", "Claude": "B"}


async def test_a_restyle_refuses_when_another_process_added_a_turn_since_its_proposals(home):
    """Issue 34 §6: the proposals answer the turn that was last when the restyle was planned; a
    turn another process added since must not be replaced by a reply to the older question."""

    def scripted_in(workspace: Workspace) -> dict[str, ScriptedProvider]:
        providers = {label: ScriptedProvider(label) for label in ("ChatGPT", "Claude", "Gemini")}
        for label, provider in providers.items():
            provider.default = f"{label} answer"
        workspace.attach_providers(providers, {})  # type: ignore[arg-type]
        workspace.update_settings(claim_map=False)
        return providers

    here, elsewhere = Workspace.open(home), Workspace.open(home)
    mine = scripted_in(here)
    scripted_in(elsewhere)

    await run_turn(Engine(here), Mode.ALL, "First question")
    records = [stored.record for stored in here.archive.turns(here.session.id)]
    plan = plan_restyle(here.session, records, Style.COUNCIL)
    elsewhere.session = elsewhere.store.changed_elsewhere(elsewhere.session) or elsewhere.session
    await run_turn(Engine(elsewhere), Mode.CHATGPT, "A question from another process")
    for provider in mine.values():
        provider.calls.clear()

    events = [e async for e in Engine(here).run(plan.mode, "", plan.style, plan.reuse, plan.reused_from)]

    assert [event.message for event in of_type(events, RunFailed)] == [RESTYLE_RACED]
    assert all(provider.calls == [] for provider in mine.values())
    stored = Workspace.open(home).session.history
    assert [m.text for m in stored if m.role == "user"] == ["First question", "A question from another process"]
    assert stored[-1].text == "ChatGPT answer"


async def test_a_restyle_of_a_restyle_names_the_run_that_made_the_proposals(workspace, scripted, make_engine):
    """Issue 35: "3 proposer calls saved (reused from run 2)" where run 2 had itself reused run 1;
    and Compare shows the reused proposals marked as reused, not "no calls recorded" (34 §6)."""
    for label, provider in scripted.items():
        provider.scripts["proposer"] = [f"Proposal of {label}."]
        provider.default = "FINAL REPLY:\nmerged"
    well_formed_rankings(scripted)
    engine = make_engine()
    await run_turn(engine, Mode.ALL, "Q")
    for style in (Style.COUNCIL, Style.AGGREGATE):
        records = [stored.record for stored in workspace.archive.turns(workspace.session.id)]
        await run_turn_with(engine, plan_restyle(workspace.session, records, style))

    third = workspace.archive.turns(workspace.session.id)[-1].record
    assert third.reused_from == 1
    assert "3 proposer calls saved (reused from run 1)" in report_markdown(third)
    first_round = compare_rounds(third)[0]
    assert {p.figures for p in first_round.proposals} == {"reused from run 1 · no call"}
