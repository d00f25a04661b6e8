"""`ensemble-tui ask --restyle STYLE`: the last turn again in another style, end to end (the
command line, the real SDKs, the loopback simulator), in this process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ensemble_tui.core.records.report import report_markdown
from ensemble_tui.core.records.restyle import NO_TURN
from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.store.home import HomePaths
from ensemble_tui.simulator import Simulator
from ensemble_tui.simulator.script import ScriptedReply
from tests.core.helpers import restored_session
from tests.test_ask import AGGREGATOR, ask, history

QUESTION = "Which claim holds?"


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator() as simulator:
        yield simulator


def proposer_calls(sim: Simulator) -> int:
    """Calls whose last user turn is the question alone: a proposer's (a reviewer's, the
    chairman's and the aggregator's carry a task after it)."""
    scripts = (sim.openai, sim.anthropic, sim.gemini)
    return sum(call.last_user_text.strip() == QUESTION for script in scripts for call in script.calls)


def test_restyle_reuses_the_last_turns_proposals_and_replaces_its_reply(sim: Simulator, home: Path) -> None:
    for script in (sim.openai, sim.anthropic, sim.gemini):
        script.push(ScriptedReply(f"Answer from {script.name}.", unless=AGGREGATOR))
        script.default = ScriptedReply("Both fine.\n\nFINAL RANKING:\n1. A\n2. B")
    sim.openai.push(ScriptedReply("FINAL REPLY:\nThe merged reply.", match=AGGREGATOR))
    assert ask(sim, home, QUESTION).returncode == 0
    assert proposer_calls(sim) == 3
    sim.openai.push(ScriptedReply("The chairman's reply.", match="You are the chair"))

    result = ask(sim, home, "--restyle", "council")

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "The chairman's reply."
    assert "restyling the last turn as Council: 3 proposer calls saved (reused from run 1)" in result.stderr
    assert proposer_calls(sim) == 3  # none since the first turn
    reviewed = [c for s in (sim.openai, sim.anthropic, sim.gemini) for c in s.calls if "# Answer A" in c.last_user_text]
    assert len(reviewed) >= 4  # three rankings and the chairman, reading the first turn's proposals
    assert all(call.last_user_text.count("Answer from") >= 2 for call in reviewed)
    assert history(home) == [("user", QUESTION), ("assistant", "The chairman's reply.")]
    session = restored_session(home)
    line = session.history[-1].provenance.line
    assert line.startswith("All · Council · chairman ") and line.endswith(" · restyled")
    assert f"reply by: {line}" in result.stderr
    archive = RunArchive(HomePaths(home).archive)
    try:
        record = archive.turns(session.id)[-1].record
    finally:
        archive.close()
    assert "3 proposer calls saved (reused from run 1)" in report_markdown(record)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("--restyle", "vote", "A new question"), "--restyle redoes the last turn: it takes no QUESTION"),
        (("--restyle", "vote", "--mode", "all"), "--restyle keeps the last turn's mode: leave out --mode"),
        (("--restyle", "vote", "--style", "council"), "--restyle is the new style: leave out --style"),
    ],
    ids=["question", "mode", "style"],
)
def test_restyle_conflicts_with_a_question_and_a_mode(sim: Simulator, home: Path, args, line) -> None:
    result = ask(sim, home, *args)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == f"ensemble-tui: {line}"
    assert sim.openai.calls == [] and sim.anthropic.calls == [] and sim.gemini.calls == []


def test_a_chat_without_a_turn_has_nothing_to_restyle(sim: Simulator, home: Path) -> None:
    result = ask(sim, home, "--restyle", "debate")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == f"ensemble-tui: {NO_TURN}"
    assert result.stdout == ""
