"""Costs as the providers bill them: a reported cost replaces the estimate, searches are billed
per query or per prompt as the model's configuration says, and the run report tells which
costs are exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.config import ModelSpec, load_provider_config
from ensemble_tui.core.provider import Reply, Usage
from ensemble_tui.core.records.report import turn_report
from ensemble_tui.core.turn.costs import call_cost, usage_cost
from ensemble_tui.core.workspace import Workspace
from tests.core.helpers import run_turn
from tests.core.test_styles import MODELS, answer

PRICED = ModelSpec(id="m", input=2.0, output=10.0, web_search_per_call=0.014)


def test_a_reported_cost_is_the_cost_and_is_marked_exact():
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000, web_searches=3, cost_usd=0.25)
    assert call_cost(PRICED, usage) == (0.25, True)
    estimated = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert call_cost(PRICED, estimated) == (pytest.approx(12.0), False)


def test_searches_are_billed_per_query_or_once_per_grounded_prompt():
    three = Usage(web_searches=3)
    assert usage_cost(PRICED, three) == pytest.approx(3 * 0.014)
    per_prompt = PRICED.model_copy(update={"search_billing": "per_prompt", "web_search_per_call": 0.035})
    assert usage_cost(per_prompt, three) == pytest.approx(0.035)
    assert usage_cost(per_prompt, Usage()) == 0


def test_added_usages_stay_exact_only_while_every_part_is():
    exact = Usage(input_tokens=10, cost_usd=0.5)
    assert (exact + Usage(input_tokens=5, cost_usd=0.25)).cost_usd == pytest.approx(0.75)
    assert (exact + Usage()).cost_usd == 0.5  # nothing used: nothing to estimate
    assert (exact + Usage(input_tokens=5)).cost_usd is None  # part unknown: estimate the whole


def test_an_older_configuration_without_search_billing_still_loads(tmp_path: Path):
    path = tmp_path / "Gemini.json"
    model = {"id": "gemini-2.5-pro", "input": 1.25, "output": 10.0, "web_search_per_call": 0.035}
    path.write_text(json.dumps({"label": "Gemini", "default_model": "gemini-2.5-pro", "models": [model]}))
    spec = load_provider_config(path).model("gemini-2.5-pro")
    assert spec is not None and spec.search_billing == "per_query"  # never fewer fees than searches ran


async def test_the_report_says_which_costs_were_billed_and_which_estimated(
    home: Path, workspace, scripted, make_engine
):
    for label in MODELS:
        scripted[label].scripts["proposer"] = [answer(label)]
    billed = Usage(input_tokens=900, output_tokens=80, cost_usd=0.0133)
    scripted["Claude"].scripts["proposer"] = [Reply(answer("Claude"), billed)]
    scripted["ChatGPT"].scripts["aggregator"] = ["FINAL REPLY:\nDone."]
    before = workspace.session.cost_usd
    await run_turn(make_engine(), Mode.ALL, "What does it cost?")

    (stored,) = Workspace.open(home).archive.turns(workspace.session.id)
    record = stored.record
    claude = next(call for call in record.calls if call.provider == "Claude")
    assert claude.cost_usd == pytest.approx(0.0133)
    assert workspace.session.cost_usd - before == pytest.approx(sum(call.cost_usd for call in record.calls))
    summary, calls = (section.markdown for section in turn_report(record)[:2])
    assert f"1 of {len(record.calls)} calls as billed by the provider, the rest estimated" in summary
    assert "| $0.0133 billed |" in calls
    assert calls.count(" est. |") == len(record.calls) - 1
