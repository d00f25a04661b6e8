"""`ensemble-tui ask`: one turn without the terminal UI, for scripts and quick questions."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Awaitable
from typing import TextIO

from ensemble_tui.ask_json import dumps, turn_json
from ensemble_tui.bootstrap import attach_providers, beside_warm_up, simulator_context
from ensemble_tui.core.chat.modes import RunMode, Style, parse_run_mode
from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.chat.session import ModelOutput
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import (
    EngineEvent,
    Notice,
    ProposalReceived,
    ProposerFailed,
    ReplyCommitted,
    Resubmitted,
    RetryScheduled,
    ReviewReceived,
    RunFailed,
    StatusChanged,
    VoteCounted,
)
from ensemble_tui.core.upload_cleanup import alongside_clean_up
from ensemble_tui.core.workspace import Workspace


def render_reply(event: ReplyCommitted) -> str:
    """The reply as printed: its text, then a short Sources list when it cites any."""
    if not event.sources:
        return event.text
    sources = "\n".join(f"- {url}" for url in event.sources)
    return f"{event.text}\n\nSources:\n{sources}"


def describe(event: EngineEvent) -> str | None:
    """One stderr line for an event, or None for events that need none."""
    if isinstance(event, StatusChanged):
        answered = f" [answered: {', '.join(event.answered)}]" if event.answered else ""
        return event.text + answered
    if isinstance(event, ProposerFailed):
        return f"skipped {event.provider}: {event.message}"
    if isinstance(event, Resubmitted):
        return f"the aggregator asked for another round (request {event.iteration})"
    if isinstance(event, Notice):
        return event.message
    if isinstance(event, RetryScheduled):
        return event.line
    if isinstance(event, ReviewReceived):
        return f"{event.reviewer} reviewed the answers" + ("" if event.accepted else " (unreadable, left out)")
    if isinstance(event, VoteCounted):
        return "tally: " + ", ".join(f"{row.rank}. {row.author}" for row in event.rows)
    return None


async def run_ask(
    engine: Engine, mode: RunMode, style: Style, question: str, out: TextIO, err: TextIO, *, as_json: bool = False
) -> int:
    """The turn: the reply (or, `as_json`, the whole turn as one JSON object) on `out`, status on `err`."""
    outputs: dict[str, ModelOutput] = {}
    async for event in engine.run(mode, question, style):
        if isinstance(event, ProposalReceived):
            outputs[event.provider] = event.output
        if isinstance(event, ReplyCommitted):
            if as_json:
                print(dumps(turn_json(event, outputs, last_record(engine), engine.workspace.session.cost_usd)), file=out)
            else:
                print(render_reply(event), file=out)
            if event.message.provenance is not None:
                print(f"reply by: {event.message.provenance.line}", file=err)
            if event.message.checks:
                from ensemble_tui.core.paper.quotes import QuoteReport, stderr_lines

                for line in stderr_lines(QuoteReport.from_record(event.message.checks)):
                    print(line, file=err)
            if event.claims is not None:
                print(f"claims: {event.claims.summary}", file=err)
            return 0
        if isinstance(event, RunFailed):
            print(f"ensemble-tui: {event.message}", file=err)
            return 1
        line = describe(event)
        if line:
            print(line, file=err, flush=True)
    return 1


def last_record(engine: Engine) -> TurnRecord | None:
    """The run record the engine stored with the reply just committed (its calls and costs)."""
    workspace = engine.workspace
    turns = workspace.archive.turns(workspace.session.id)
    return turns[-1].record if turns else None


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


async def cancelled_by_signals(work: Awaitable[int]) -> int:
    """Run `work`; SIGTERM and SIGHUP cancel it as Ctrl+C does, so the turn rolls back through
    the engine's cancel path and the cost of its calls is recorded (answered ones as billed,
    those in flight at their reserved worst case) before the process exits."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, task.cancel)
    try:
        return await work
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)


def ask(
    workspace: Workspace,
    *,
    question: str,
    mode: str,
    style: str,
    new: bool,
    pdf: str | None,
    demo: bool,
    as_json: bool = False,
) -> int:
    for warning in workspace.warnings:
        print(f"ensemble-tui: {warning}", file=sys.stderr)
    with simulator_context(demo) as env:
        attach_providers(workspace, env)
        try:
            if new:
                workspace.new_chat()
            if pdf:
                workspace.select_pdf(pdf)
        except EnsembleError as exc:
            print(f"ensemble-tui: {exc}", file=sys.stderr)
            return 2
        try:
            run_mode = parse_run_mode(mode, workspace.extra_providers)
        except ValueError as exc:
            print(f"ensemble-tui: {exc}", file=sys.stderr)
            return 2
        engine = Engine(workspace)
        try:
            turn = beside_warm_up(
                workspace, run_ask(engine, run_mode, Style.parse(style), question, sys.stdout, sys.stderr, as_json=as_json)
            )
            return asyncio.run(cancelled_by_signals(alongside_clean_up(workspace, turn, sys.stderr)))
        except (KeyboardInterrupt, asyncio.CancelledError):
            print("ensemble-tui: cancelled; nothing of this turn was kept.", file=sys.stderr)
            return 130
