"""The budget is a hard cap: every call reserves its worst case in History.sqlite3 before it is
sent, so turns on one chat from several processes (here: two Workspaces on one home) never
spend past the cap together; a call kept out only by calls in flight waits for them; a call is
sent with the output-token limit the budget affords; a cancelled call counts at its input alone
(issue 34 §2); a process that died leaves its reservations counted, shown as unconfirmed, until
they are released; a ledger that cannot be written refuses the call (§3)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import random
import sqlite3
import subprocess
import sys
from multiprocessing.synchronize import Event
from pathlib import Path

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.provider import Reply, Usage
from ensemble_tui.core.settings import load_settings
from ensemble_tui.core.store.budget_ledger import SqliteLedger, process_start_time, release, rows, tally
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import CostUpdated, Notice, ReplyCommitted, RunFailed, StatusChanged
from ensemble_tui.core.workspace import Workspace
from tests.core.helpers import of_type, run_turn
from tests.core.pdf_factory import text_pdf
from tests.support import Hang, Held, ScriptedProvider, no_sleep


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


async def test_a_call_kept_out_only_by_a_call_in_flight_waits_for_it_then_goes(home) -> None:
    first, second = Workspace.open(home), Workspace.open(home)
    assert first.session.id == second.session.id
    first.update_settings(budget_usd=1.0)
    second.update_settings(budget_usd=1.0)
    held = Held(Reply("first answer", Usage(input_tokens=100, output_tokens=100)))
    slow = attach(first, held)
    other = attach(second, Reply("second answer", Usage(input_tokens=100, output_tokens=100)))

    running = asyncio.create_task(run_turn(engine(first), Mode.CHATGPT, "first"))
    while not slow.calls:  # the first call is out, its worst case (the whole $1) reserved
        await asyncio.sleep(0.01)
    waited = []
    async for event in engine(second).run(Mode.CHATGPT, "second"):
        waited.append(event)
        if isinstance(event, StatusChanged) and "waiting for calls in flight" in event.text:
            held.release.set()  # the first call answers only once the second is seen waiting
    statuses = [event.text for event in of_type(waited, StatusChanged)]
    assert any("waiting for calls in flight" in text for text in statuses), statuses
    assert of_type(waited, ReplyCommitted) and not of_type(waited, RunFailed)
    assert len(other.calls) == 1  # sent once the first call settled at what it cost

    assert of_type(await running, ReplyCommitted)
    assert ledger_rows(first) == []  # each commit released its turn's reservation
    assert Workspace.open(home).session.cost_usd <= 1.0


async def test_each_call_is_sent_with_the_output_limit_the_budget_affords(workspace) -> None:
    provider = attach(workspace, Reply("a", Usage(output_tokens=10)), Reply("b", Usage(output_tokens=10)))
    await run_turn(engine(workspace), Mode.CHATGPT, "roomy")
    assert provider.calls[0].max_output_tokens == 128_000  # gpt-5's own limit, under a $5 cap
    assert provider.calls[0].max_searches == 3  # the searches its reservation counts, capped in the request
    workspace.update_settings(budget_usd=0.08)
    await run_turn(engine(workspace), Mode.CHATGPT, "tight")
    assert 4_000 <= (provider.calls[1].max_output_tokens or 0) < 5_000  # $0.08 at $10 per 1M, less three searches


async def test_a_cancelled_call_counts_at_its_input_alone_marked_as_an_estimate(workspace) -> None:
    provider = attach(workspace, Hang())
    running = engine(workspace)
    task = asyncio.create_task(run_turn(running, Mode.CHATGPT, "never answered"))
    while not provider.calls:
        await asyncio.sleep(0.01)
    await running.cancel()
    events = await task
    limit = provider.calls[0].max_output_tokens or 0
    assert limit * 10 / 1_000_000 > 1.0  # its worst case was over a dollar
    assert 0 < workspace.session.cost_usd < 0.01  # booked at its prompt: some hundred tokens at $1.25 per 1M
    shown = [event.session_cost_usd for event in of_type(events, CostUpdated)]
    assert shown and max(shown) == workspace.session.cost_usd  # the cancel moved the shown cost by no more
    assert Workspace.open(workspace.paths.root).session.cost_usd == workspace.session.cost_usd
    assert ledger_rows(workspace) == []
    (turn,) = workspace.archive.turns(workspace.session.id)
    (call,) = turn.record.calls
    assert call.outcome == "cancelled" and call.estimated and call.usage.input_tokens > 0


async def test_four_cancelled_turns_leave_the_chat_usable(workspace) -> None:
    provider = attach(workspace, Hang(), Hang(), Hang(), Hang(), Reply("at last", Usage(output_tokens=10)))
    for n in range(4):
        running = engine(workspace)
        task = asyncio.create_task(run_turn(running, Mode.CHATGPT, f"cancelled {n}"))
        while len(provider.calls) <= n:
            await asyncio.sleep(0.01)
        await running.cancel()
        await task
    events = await run_turn(engine(workspace), Mode.CHATGPT, "answered")
    assert of_type(events, ReplyCommitted), [event.message for event in of_type(events, RunFailed)]
    assert workspace.session.cost_usd < 1.0
    assert ledger_rows(workspace) == []


def dead_pid() -> int:
    """The pid of a process that ran and ended (its number is not reused this soon)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


async def test_reservations_of_a_process_that_died_count_as_unconfirmed_until_released(workspace) -> None:
    workspace.update_settings(budget_usd=0.5)
    with workspace.archive.writing() as db:  # a turn of a process that was killed: never settled
        db.execute(
            "INSERT INTO budget_reservations (session, turn, pid, process_started, worst_usd) VALUES (?, ?, ?, ?, ?)",
            (workspace.session.id, "turn-of-a-killed-process", dead_pid(), 1.0, 0.49),
        )
    provider = attach(workspace, Reply("an answer", Usage(output_tokens=10)))
    events = await run_turn(engine(workspace), Mode.CHATGPT, "after the crash")
    message = of_type(events, RunFailed)[0].message
    assert message.startswith("Budget stop") and "$0.00 spent" in message
    assert "up to $0.49 unconfirmed from a turn cut off at" in message and "budget --release" in message
    assert provider.calls == []  # it still counts: refused at once, no waiting for a dead process

    warning = release(workspace.archive, workspace.session.id)
    assert warning is not None and warning.startswith("Released $0.49") and "\n" not in warning
    again = await run_turn(engine(workspace), Mode.CHATGPT, "after the release")
    assert of_type(again, ReplyCommitted)
    assert release(workspace.archive, workspace.session.id) is None  # nothing left to release


async def test_a_ledger_that_cannot_be_written_refuses_the_paid_call(workspace, monkeypatch) -> None:
    provider = attach(workspace, Reply("never sent", Usage(output_tokens=10)))

    class FullDisk:
        """The archive as the budget ledger finds it on a full disk (the store keeps its own)."""

        def writing(self, busy_timeout_s: float = 10.0) -> contextlib.AbstractContextManager[sqlite3.Connection]:
            raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(workspace, "archive", FullDisk())
    events = await run_turn(engine(workspace), Mode.CHATGPT, "on a full disk")
    message = of_type(events, RunFailed)[0].message
    assert message.startswith("Budget stop") and "cannot be written" in message and "disk is full" in message
    assert provider.calls == []  # no fallback to memory: nothing is sent


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


async def test_a_pdfs_pages_are_reserved_at_the_providers_documented_tokens_per_page(
    workspace, scripted, make_engine, tmp_path
) -> None:
    # Issue 34 §3: the reservation guessed a PDF's input from its bytes (~1 token per 40), far below
    # what Anthropic documents per page, so a long paper's call went out under a cap it could pass.
    paper = text_pdf(tmp_path / "long.pdf", [f"Page {n}." for n in range(1, 41)])  # 40 short pages
    assert paper.stat().st_size // 40 < 40 * 3_000
    workspace.select_pdf(paper)
    workspace.update_settings(budget_usd=0.25)  # 40 pages at 3,000 tokens, $3 per 1M: $0.36 of input
    scripted["Claude"].scripts["any"] = [Reply("read it all", Usage(input_tokens=120_000, output_tokens=10))]
    events = await run_turn(make_engine(), Mode.CLAUDE, "Summarise the paper.")
    message = of_type(events, RunFailed)[0].message
    assert message.startswith("Budget stop") and "$0.25 cap" in message
    assert scripted["Claude"].calls == []  # refused before it was sent


async def test_calls_reserved_together_are_written_in_one_transaction_each_refused_alone(home, monkeypatch) -> None:
    """Each ledger transaction syncs History.sqlite3 to disk, one after another: a wave of five
    proposers paid five before its last request left, and five more as its answers were
    settled (issue 36, bench row 1). Calls that reserve in the same step share one transaction
    (core/turn/ledger_desk.py), and each still gets its own answer: a call past the cap is
    refused while the others go."""
    from ensemble_tui.core.store.archive import RunArchive
    from ensemble_tui.core.store.budget_ledger import ReserveOp, SettleOp, SqliteLedger
    from ensemble_tui.core.turn.ledger_desk import LedgerDesk

    workspace = Workspace.open(home)
    transactions: list[str] = []
    writing = RunArchive.writing

    def counted(self: RunArchive, busy_timeout_s: float = 10.0):  # noqa: ANN202 - the wrapped context manager
        transactions.append("write")
        return writing(self, busy_timeout_s)

    monkeypatch.setattr(RunArchive, "writing", counted)
    desk = LedgerDesk(SqliteLedger(workspace.archive, workspace.session.id, "turn-1"))

    def costing(worst: float):  # noqa: ANN202 - a Sizing
        return lambda remaining: (1000, worst) if worst <= remaining else None

    outcomes = await asyncio.gather(
        *(desk.reserve(ReserveOp(0.0, 1.0, costing(0.3))) for _ in range(4)), return_exceptions=True
    )
    granted = [outcome for outcome in outcomes if not isinstance(outcome, Exception)]
    assert len(granted) == 3 and len({reservation.id for reservation in granted}) == 3
    assert [type(outcome).__name__ for outcome in outcomes if isinstance(outcome, Exception)] == [
        "ReservationsInFlight"
    ]  # the fourth would fit once the others settle below their worst case
    assert transactions == ["write"]
    await asyncio.gather(*(desk.settle(SettleOp(reservation, 0.01)) for reservation in granted))
    assert transactions == ["write", "write"]
    assert sorted(billed for _row, _worst, billed in ledger_rows(workspace)) == [0.01, 0.01, 0.01]


def reserve_and_wait(home: Path, session: str, reserved: Event, finish: Event) -> None:
    """In a forked process: reserve one call's worst case on the chat, then wait to be told to end."""
    ledger = SqliteLedger(Workspace.open(home).archive, session, "turn-of-the-forked-process")
    ledger.reserve(0.0, 5.0, lambda _room: (1_000, 0.25))
    reserved.set()
    finish.wait(30)


def test_a_forked_process_calls_count_in_flight_while_it_runs_not_as_cut_off(home: Path) -> None:
    # A process forked from one that had imported the ledger (multiprocessing, a server that
    # preloads the app, as tests/forked.py does) must name its rows by its own pid and start:
    # with its parent's start, every other process judged its calls those of a turn cut off.
    session = Workspace.open(home).session.id
    context = multiprocessing.get_context("fork")
    reserved, finish = context.Event(), context.Event()
    child = context.Process(target=reserve_and_wait, args=(home, session, reserved, finish))
    child.start()
    try:
        assert reserved.wait(30)
        with Workspace.open(home).archive.writing() as db:
            counted = tally(db, session)
            (named,) = db.execute("SELECT pid, process_started FROM budget_reservations").fetchall()
        own_start = process_start_time(child.pid)
        assert named[0] == child.pid and own_start is not None
        assert abs(named[1] - own_start) < 0.5  # its own start, not its parent's (this test's process)
        assert (counted.in_flight, counted.in_flight_elsewhere, counted.unconfirmed) == (0.25, 0.25, 0.0)
    finally:
        finish.set()
        child.join(30)
    assert child.exitcode == 0
