"""An eval arm and an `ask` of the same mode send the same requests (issue 31 §4): both assemble
their turn through core/turn/assembly.py, so what an eval measures is what a chat would have sent.

`ask` runs through the command line against one loopback simulator, the arm through
`run_arm` against another, both through the real adapters; the request bodies each simulator
recorded are compared, provider by provider. Every model answers with the simulator's same
default words, so the shuffled packets read alike whatever the order the answers came in.
"""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from pathlib import Path
from typing import Any

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.store.budget_ledger import SqliteLedger
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.eval.arms import ArmKit, parse_arms, run_arm
from ensemble_tui.eval.model import EvalQuestion
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator import Simulator
from tests.support import run_command

QUESTION = "What does the second lemma assume?"
PROVIDERS = ("openai", "anthropic", "gemini")


BUDGET_USD = 100_000.0  # so large that every call's output limit is the model's own, not the budget's share


def prepared_home(home: Path, claim_map: bool) -> None:
    """A home with a budget that sizes no call (the eval shares its cap among the calls in
    flight, a chat does not), and, for `all`, no claim map: an eval's `all` arm draws none."""
    Workspace.open(home).update_settings(claim_map=claim_map, budget_usd=BUDGET_USD)


FILE_KEYS = frozenset({"file_id", "file_uri", "fileUri"})  # the paper's upload, named by each simulator its own way


def without_ids(value: Any) -> Any:
    """A request body with the uploaded paper's id left out (each simulator makes its own)."""
    if isinstance(value, dict):
        return {key: "<paper>" if key in FILE_KEYS else without_ids(item) for key, item in value.items()}
    if isinstance(value, list):
        return [without_ids(item) for item in value]
    return value


def sent(sim: Simulator) -> dict[str, list[str]]:
    """Each provider's model calls as their bodies, in a stable order (the calls of one round run
    at once and reach the simulator in any order)."""
    return {
        name: sorted(json.dumps(without_ids(call.body), sort_keys=True) for call in sim.script(name).calls)
        for name in PROVIDERS
    }


async def arm_sends(home: Path, sim: Simulator, arm_name: str, pdf: Path | None = None) -> dict[str, Any]:
    """One eval arm's answer to QUESTION, through the real adapters against `sim`."""
    workspace = Workspace.open(home)
    providers, unavailable = build_providers(workspace, env=sim.env)
    workspace.attach_providers(providers, unavailable)
    kit = ArmKit(
        providers=workspace.providers,
        configs=workspace.configs,
        settings=workspace.settings,
        prompts=workspace.prompts,
        participants=workspace.participants(Mode.ALL),
        ledger=lambda: SqliteLedger(workspace.archive, "eval-contract", uuid.uuid4().hex),
        cache=workspace.paths.cache,
        budget_usd=BUDGET_USD,
        rng=random.Random(1),
    )
    (arm,) = parse_arms(arm_name, tuple(workspace.configs), 3, workspace.settings.aggregator)
    try:
        answer, _ = await run_arm(kit, arm, EvalQuestion(id="q1", text=QUESTION, pdf=str(pdf) if pdf else None))
    finally:
        for adapter in providers.values():
            await adapter.aclose()
    assert answer.failed is None, answer.failed
    return sent(sim)


@pytest.mark.parametrize("mode", ["claude", "all", "auto"])
def test_an_eval_arm_sends_the_requests_an_ask_of_its_mode_sends(tmp_path: Path, mode: str) -> None:
    asked_home, eval_home = tmp_path / "ask", tmp_path / "eval"
    for home in (asked_home, eval_home):
        prepared_home(home, claim_map=mode != "all")
    with Simulator() as sim:
        result = run_command(asked_home, "ask", "--mode", mode, QUESTION, env=sim.env)
        assert result.returncode == 0, result.stderr
        asked = sent(sim)
    with Simulator() as sim:
        measured = asyncio.run(arm_sends(eval_home, sim, mode))
    assert any(asked.values())
    assert measured == asked


@pytest.mark.parametrize("mode", ["chatgpt", "all"])
def test_with_a_paper_the_arm_attaches_it_as_ask_does(tmp_path: Path, sample_pdf: Path, mode: str) -> None:
    asked_home, eval_home = tmp_path / "ask", tmp_path / "eval"
    for home in (asked_home, eval_home):
        prepared_home(home, claim_map=False)
    with Simulator() as sim:
        result = run_command(asked_home, "ask", "--mode", mode, "--pdf", str(sample_pdf), QUESTION, env=sim.env)
        assert result.returncode == 0, result.stderr
        asked = sent(sim)
    with Simulator() as sim:
        measured = asyncio.run(arm_sends(eval_home, sim, mode, sample_pdf))
    assert measured == asked
