"""Issue 34 §1: a redo or a restyle replaces the reply only when the new one is saved, in the
same commit. One case for each way a redo can end (answered, failed, refused by the budget,
cancelled) and a restyle whose chairman fails, through the command line or the engine, the real
SDKs and the loopback simulator."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import InputRecorded
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator import Simulator
from ensemble_tui.simulator.script import Fault, ScriptedReply
from tests.core.helpers import restored_session
from tests.support import no_sleep
from tests.test_ask import AGGREGATOR, ask, history

QUESTION = "What does Lemma 2 say?"
FIRST = [("user", QUESTION), ("assistant", "The first reply.")]


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator() as simulator:
        yield simulator


def transcript(home: Path) -> str:
    return (home / "Chats" / f"{restored_session(home).id}.md").read_text(encoding="utf-8")


def first_turn(sim: Simulator, home: Path) -> None:
    sim.openai.push(ScriptedReply("The first reply."))
    assert ask(sim, home, "--mode", "chatgpt", QUESTION).returncode == 0
    assert history(home) == FIRST


def assert_unchanged(home: Path) -> None:
    """The chat exactly as the first turn left it: stored, in the transcript, nothing marked failed."""
    session = restored_session(home)
    assert [(m.role, m.text) for m in session.history] == FIRST
    assert session.history[0].failure is None
    assert "The first reply." in transcript(home)


def test_an_answered_redo_replaces_the_reply_and_keeps_the_old_one_to_bring_back(sim: Simulator, home: Path) -> None:
    first_turn(sim, home)
    sim.openai.push(ScriptedReply("The redone reply."))

    result = ask(sim, home, "--mode", "chatgpt", "")

    assert result.returncode == 0, result.stderr
    assert history(home) == [("user", QUESTION), ("assistant", "The redone reply.")]
    assert "The first reply." not in transcript(home)
    session = restored_session(home)
    assert session.replaced is not None and session.replaced.text == "The first reply."
    from ensemble_tui.core.chat.session import brought_back

    back = brought_back(session)
    assert back is not None and back.history[-1].text == "The first reply."
    assert back.replaced is not None and back.replaced.text == "The redone reply."


def test_a_redo_that_meets_a_401_leaves_the_reply_in_place(sim: Simulator, home: Path) -> None:
    first_turn(sim, home)
    sim.openai.push(Fault("bad_key"))

    result = ask(sim, home, "--mode", "chatgpt", "")

    assert result.returncode == 1
    assert result.stderr.rstrip().endswith("the last reply is kept as it was.")
    assert_unchanged(home)
    assert restored_session(home).replaced is None  # nothing was replaced


def test_a_redo_refused_by_the_budget_leaves_the_reply_in_place(sim: Simulator, home: Path) -> None:
    first_turn(sim, home)
    Workspace.open(home).update_settings(budget_usd=0.0001)

    result = ask(sim, home, "--mode", "chatgpt", "")

    assert result.returncode == 1
    assert "Budget stop" in result.stderr
    assert len(sim.openai.calls) == 1  # the first turn's: the redo's call was refused before it went
    assert_unchanged(home)


def test_a_cancelled_redo_leaves_the_reply_in_place(sim: Simulator, home: Path) -> None:
    """A guard, not a fix: a cancelled turn has kept nothing but its cost since f095b52, so this
    passes on aca9ac6 as well (run there through the old Engine.run, while the 401 case fails).
    No cancel reaches the branch where aca9ac6 dropped the reply: it took only a failed outcome."""
    first_turn(sim, home)
    sim.openai.push(Fault("hang", hang_s=30))

    async def redo_then_cancel() -> list[tuple[str, str]]:
        workspace = Workspace.open(home)
        providers, unavailable = build_providers(workspace, env=sim.env)
        workspace.attach_providers(providers, unavailable)
        engine = Engine(workspace, rng=random.Random(1), sleep=no_sleep, timeout_s=20)
        try:
            redo = engine.start(Mode.CHATGPT, "")
            started = await anext(redo.events)
            assert isinstance(started, InputRecorded) and started.redo
            while len(sim.openai.calls) < 2:  # the redo's call is out, and hangs
                await asyncio.sleep(0.01)
            await engine.cancel()
            return [(m.role, m.text) for m in workspace.session.history]
        finally:
            for adapter in workspace.providers.values():
                await adapter.aclose()  # type: ignore[attr-defined]

    assert asyncio.run(redo_then_cancel()) == FIRST
    assert_unchanged(home)


def test_a_restyle_whose_chairman_fails_leaves_the_reply_in_place(sim: Simulator, home: Path) -> None:
    for script in (sim.openai, sim.anthropic, sim.gemini):
        script.push(ScriptedReply(f"Answer from {script.name}.", unless=AGGREGATOR))
        script.default = ScriptedReply("Both fine.\n\nFINAL RANKING:\n1. A\n2. B")
    sim.openai.push(ScriptedReply("FINAL REPLY:\nThe merged reply.", match=AGGREGATOR))
    assert ask(sim, home, QUESTION).returncode == 0
    merged = [("user", QUESTION), ("assistant", "The merged reply.")]
    assert history(home) == merged
    sim.openai.push(Fault("bad_key", match="You are the chair"))

    result = ask(sim, home, "--restyle", "council")

    assert result.returncode == 1
    assert history(home) == merged
    assert "The merged reply." in transcript(home)
    # The chat still ends with the merged reply, so a restyle still starts from its run.
    sim.openai.push(ScriptedReply("The chairman's reply.", match="You are the chair"))
    again = ask(sim, home, "--restyle", "council")
    assert again.returncode == 0, again.stderr
    assert "(reused from run 1)" in again.stderr
    assert history(home) == [("user", QUESTION), ("assistant", "The chairman's reply.")]
