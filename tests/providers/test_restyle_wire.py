"""A restyle on the wire: after an All turn, the same turn as a council makes no proposer call,
and its reviewers and chairman read the proposals the All turn's proposers wrote, anonymously.

The real adapters (openai, anthropic, google-genai, and DeepSeek over Chat Completions) against
the loopback simulator, with the chat contract's home and prompts (test_chat_contract.py). Every
proposal carries a serial number, so a proposer asked again would write a text not seen before.
"""

from __future__ import annotations

import itertools

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.records.report import report_markdown
from ensemble_tui.core.records.restyle import plan_restyle
from ensemble_tui.core.turn.events import ProposalReceived, ReplyCommitted
from ensemble_tui.simulator import RecordedRequest, ScriptedReply, Simulator
from tests.providers.provider_support import received
from tests.providers.test_chat_contract import (  # noqa: F401  (the fixtures)
    CHAIR,
    EVERYONE,
    LABELS,
    SEP,
    TASKS,
    ChatApp,
    app,
    apps,
    assert_anonymous,
    chaired,
    respond,
    served,
    sim,
)


def role(request: RecordedRequest) -> str:
    """The request's role, told by the task after the question (the test's prompts' first words)."""
    task = request.last_user_text.split(SEP)[-1]
    return next((word.lower() for word in TASKS if task.startswith(word)), "proposer")


def numbered(counter: itertools.count[int]):
    def answer(request: RecordedRequest) -> ScriptedReply:
        if role(request) == "proposer":
            return ScriptedReply(f"Proposal number {next(counter)} to {request.last_user_text}")
        return respond(request)

    return answer


async def test_a_council_restyle_of_an_all_turn_asks_no_proposer_and_reviews_its_proposals(
    app: ChatApp,  # noqa: F811
    sim: Simulator,  # noqa: F811
) -> None:
    counter = itertools.count(1)
    for name in LABELS:
        sim.script(name).default = numbered(counter)
    first = await app.turn(Mode.ALL, "Q1?")
    proposals = {e.provider: e.output.text for e in first.events if isinstance(e, ProposalReceived)}
    assert sorted(proposals) == sorted(EVERYONE) and len(set(proposals.values())) == 4
    records = [stored.record for stored in app.workspace.archive.turns(app.workspace.session.id)]
    plan = plan_restyle(app.workspace.session, records, Style.COUNCIL)
    before = {label: len(sim.script(name).calls) for name, label in LABELS.items()}

    events = [e async for e in app.engine.run(plan.mode, "", plan.style, plan.reuse, plan.reused_from)]

    requests = {label: sim.script(name).calls[before[label] :] for name, label in LABELS.items()}
    roles = sorted(role(request) for made in requests.values() for request in made)
    assert roles == ["chair"] + ["rank"] * 4  # zero proposer calls: one ranking each, one chairman
    calls = {label: [received(request) for request in made] for label, made in requests.items()}
    assert_anonymous(calls)
    for label, made in requests.items():
        ranking = next(r for r in made if role(r) == "rank").last_user_text
        assert all(text in ranking for author, text in proposals.items() if author != label)
        assert proposals[label] not in ranking  # a reviewer ranks the others
    chair = next(r for r in requests[CHAIR] if role(r) == "chair").last_user_text
    assert all(text in chair for text in proposals.values())
    assert [e.text for e in events if isinstance(e, ReplyCommitted)] == [chaired("Q1?")]
    assert [m.text for m in app.workspace.session.history] == ["Q1?", chaired("Q1?")]
    record = app.workspace.archive.turns(app.workspace.session.id)[-1].record
    assert "4 proposer calls saved (reused from run 1)" in report_markdown(record)
