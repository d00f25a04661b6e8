"""The demo is honest about money: what a turn would cost with real providers, labelled as
simulated, in `ask`, the history and the run report; the budget guard stops a demo all the same
and says its money is simulated. Real chats keep their figures unlabelled."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.money import cost_phrase, money
from ensemble_tui.core.provider import Reply, Usage
from ensemble_tui.core.turn.events import RunFailed
from tests.core.helpers import of_type, run_turn
from tests.support import run_command

SIMULATED_COST = re.compile(r"this turn would cost \$\d+\.\d\d \(simulated\) · chat \$\d+\.\d\d \(simulated\)")


def test_money_is_labelled_simulated_only_in_a_demo() -> None:
    assert money(0.1711) == "$0.1711" and cost_phrase(0.1711) == "cost $0.1711"
    assert money(0.1711, simulated=True) == "$0.17 (simulated)"
    assert cost_phrase(0.1711, simulated=True) == "would cost $0.17 (simulated)"


def test_ask_demo_history_and_report_say_the_cost_is_simulated(home: Path, quick_demo: None) -> None:
    asked = run_command(home, "ask", "--demo", "--mode", "all", "What does it cost?")
    assert asked.returncode == 0, asked.stderr
    assert SIMULATED_COST.search(asked.stderr), asked.stderr
    assert "costs $0" not in asked.stdout  # the scripted reply no longer claims the demo is free
    assert "simulated" in asked.stdout
    listed = run_command(home, "history", "--demo")
    header, row = listed.stdout.splitlines()[:2]
    assert "SIM. COST" in header and re.search(r"  \$\d+\.\d\d +What does it cost\?", row), listed.stdout
    assert "simulated" in listed.stderr
    exported = run_command(home, "export", "--demo", "--last", "--format", "md", "-o", "-")
    assert exported.returncode == 0, exported.stderr
    assert re.search(r"\*\*would cost:\*\* \$\d+\.\d\d \(session \$\d+\.\d\d\) \(simulated\)", exported.stdout)
    assert " sim. |" in exported.stdout  # each call's cost in the calls table
    assert "**cost:**" not in exported.stdout


def test_a_real_ask_prints_its_cost_unlabelled(home: Path) -> None:
    from ensemble_tui.simulator import Simulator
    from ensemble_tui.simulator.script import ScriptedReply

    with Simulator() as sim:
        sim.anthropic.push(ScriptedReply("Real."))
        asked = run_command(home, "ask", "--mode", "claude", "Q?", env=sim.env)
    assert asked.returncode == 0, asked.stderr
    assert re.search(r"this turn cost \$0\.\d{4} · chat \$0\.\d{4}$", asked.stderr, re.MULTILINE), asked.stderr
    assert "simulated" not in asked.stderr


@pytest.mark.parametrize(("demo", "start"), [(True, "Budget stop (simulated money): "), (False, "Budget stop: ")])
async def test_the_budget_stop_works_the_same_in_a_demo_and_says_so(workspace, scripted, make_engine, demo, start):
    workspace.demo = demo
    workspace.update_settings(budget_usd=0.01)
    scripted["ChatGPT"].scripts["proposer"] = [Reply("pricey", Usage(input_tokens=1000, output_tokens=2000))]
    events = await run_turn(make_engine(), Mode.CHATGPT, "first")
    message = of_type(events, RunFailed)[0].message
    assert message.startswith(start) and "$0.01 cap" in message
    assert scripted["ChatGPT"].calls == []  # stopped before the call, demo or not
