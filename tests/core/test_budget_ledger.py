"""The budget is a hard cap: every call reserves its worst case in History.sqlite3 before it is
sent, so turns on one chat from several processes (here: two Workspaces on one home) never
spend past the cap together; a call is sent with the output-token limit the budget affords; a
cancelled call counts at its worst case; a process that died leaves its reservations counted."""

from __future__ import annotations

import asyncio
import json
import random

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.provider import Reply, Usage
from ensemble_tui.core.settings import load_settings
from ensemble_tui.core.store.budget_ledger import SqliteLedger, rows
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import Notice, ReplyCommitted, RunFailed
from ensemble_tui.core.workspace import Workspace
from tests.core.helpers import of_type, run_turn
from tests.support import Hang, ScriptedProvider, Slow, no_sleep


def attach(workspace: Workspace, *steps: object) -> ScriptedProvider:
    provider = ScriptedProvider("ChatGPT")
    provider.scripts["any"] = list(steps)  # type: ignore[assignment]
    workspace.attach_providers({"ChatGPT": provider}, {})  # type: ignore[arg-type]
    return provider


def engine(workspace: Workspace) -> Engine:
    return Engine(workspace, rng=random.Random(1), sleep=no_sleep)


def ledger_rows(workspace: Workspace) -> list[tuple[int, float, float | None]]:
    with workspace.archive.transaction() as db:
        return list(rows(db, workspace.session.id))


async def test_two_processes_on_one_chat_cannot_both_reserve_the_last_of_the_budget(home) -> None:
    first, second = Workspace.open(home), Workspace.open(home)
    assert first.session.id == second.session.id
    first.update_settings(budget_usd=1.0)
    second.update_settings(budget_usd=1.0)
    slow = attach(first, Slow(Reply("first answer", Usage(input_tokens=100, output_tokens=100)), 0.5))
    other = attach(second, Reply("second answer", Usage(input_tokens=100, output_tokens=100)))

    running = asyncio.create_task(run_turn(engine(first), Mode.CHATGPT, "first"))
    while not slow.calls:  # the first call is out, its worst case reserved
        await asyncio.sleep(0.01)
    refused = await run_turn(engine(second), Mode.CHATGPT, "second")
    assert of_type(refused, RunFailed)[0].message.startswith("Budget stop")
    assert other.calls == []

    assert of_type(await running, ReplyCommitted)
    assert ledger_rows(first) == []  # the commit released the turn's reservation
    again = await run_turn(engine(second), Mode.CHATGPT, "second, once the first was billed")
    assert of_type(again, ReplyCommitted)
    assert len(other.calls) == 1


async def test_each_call_is_sent_with_the_output_limit_the_budget_affords(workspace) -> None:
    provider = attach(workspace, Reply("a", Usage(output_tokens=10)), Reply("b", Usage(output_tokens=10)))
    await run_turn(engine(workspace), Mode.CHATGPT, "roomy")
    assert provider.calls[0].max_output_tokens == 128_000  # gpt-5's own limit, under a $5 cap
    workspace.update_settings(budget_usd=0.06)
    await run_turn(engine(workspace), Mode.CHATGPT, "tight")
    assert 4_000 <= (provider.calls[1].max_output_tokens or 0) < 6_000  # $0.06 at $10 per 1M output, less a search


async def test_a_cancelled_call_counts_at_its_reserved_worst_case(workspace) -> None:
    provider = attach(workspace, Hang())
    running = engine(workspace)
    task = asyncio.create_task(run_turn(running, Mode.CHATGPT, "never answered"))
    while not provider.calls:
        await asyncio.sleep(0.01)
    await running.cancel()
    await task
    limit = provider.calls[0].max_output_tokens or 0
    assert workspace.session.cost_usd >= limit * 10 / 1_000_000  # billed as if it used its whole limit
    assert Workspace.open(workspace.paths.root).session.cost_usd == workspace.session.cost_usd
    assert ledger_rows(workspace) == []


async def test_reservations_of_a_process_that_died_stay_counted(workspace) -> None:
    workspace.update_settings(budget_usd=0.5)
    dead = SqliteLedger(workspace.archive, workspace.session.id, "turn-of-a-killed-process")
    dead.reserve(0.0, 0.5, lambda remaining: (30_000, 0.49))  # never settled, never committed
    provider = attach(workspace, Reply("an answer", Usage(output_tokens=10)))
    events = await run_turn(engine(workspace), Mode.CHATGPT, "after the crash")
    message = of_type(events, RunFailed)[0].message
    assert message.startswith("Budget stop") and "$0.49 spent" in message
    assert provider.calls == []


async def test_a_reply_cut_at_its_limit_says_so_once(workspace) -> None:
    attach(workspace, Reply("The beginning of a long", Usage(output_tokens=500), truncated=True))
    events = await run_turn(engine(workspace), Mode.CHATGPT, "q")
    notices = [event.message for event in of_type(events, Notice) if "cut" in event.message]
    assert len(notices) == 1 and "output limit" in notices[0]
    text = of_type(events, ReplyCommitted)[0].text
    assert text.startswith("The beginning of a long") and text.splitlines()[-1].startswith("*(Cut short at the")


def test_one_bad_setting_keeps_every_other_one(home) -> None:
    workspace = Workspace.open(home)
    path = workspace.paths.settings_file
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(budget_usd=0.01, temperature=0.2, debate_rounds="many")
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_settings(path, workspace.configs)
    assert loaded.settings.budget_usd == 0.01 and loaded.settings.temperature == 0.2
    assert loaded.settings.debate_rounds == 3
    assert loaded.warning is not None and "debate_rounds" in loaded.warning and "\n" not in loaded.warning
    assert list(path.parent.glob("Settings.json.*"))  # the file as it was, backed up
    assert json.loads(path.read_text(encoding="utf-8"))["budget_usd"] == 0.01
    assert Workspace.open(home).settings.budget_usd == 0.01
