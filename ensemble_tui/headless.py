"""`ensemble-tui ask`: one turn without the terminal UI, for scripts and quick questions."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Awaitable
from typing import TextIO

from ensemble_tui.bootstrap import attach_providers, beside_warm_up, simulator_context
from ensemble_tui.core.chat.modes import RunMode, Style, parse_run_mode
from ensemble_tui.core.chat.provenance import VoteRow
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import (
    EngineEvent,
    Notice,
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
        return "tally: " + ", ".join(tally_entry(row) for row in event.rows)
    return None


def tally_entry(row: VoteRow) -> str:
    """One answer's place with what earned it, as the run report gives it: `1. Gemini 9 pts
    (1 first)`, or for a council's ranking `1. Gemini avg position 1.50 (3 ballots)`."""
    if row.average_position is not None:
        return f"{row.rank}. {row.author} avg position {row.average_position:.2f} ({row.ballots} ballots)"
    return f"{row.rank}. {row.author} {row.points:g} pts ({row.first_places} first)"


async def run_ask(engine: Engine, mode: RunMode, style: Style, question: str, out: TextIO, err: TextIO) -> int:
    async for event in engine.run(mode, question, style):
        if isinstance(event, ReplyCommitted):
            print(render_reply(event), file=out)
            if event.message.provenance is not None:
                print(f"reply by: {event.message.provenance.line}", file=err)
            if event.message.checks:
                from ensemble_tui.core.paper.quotes import QuoteReport, stderr_lines

                for line in stderr_lines(QuoteReport.from_record(event.message.checks)):
                    print(line, file=err)
            return 0
        if isinstance(event, RunFailed):
            print(f"ensemble-tui: {event.message}", file=err)
            return 1
        line = describe(event)
        if line:
            print(line, file=err, flush=True)
    return 1


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


def ask(workspace: Workspace, *, question: str, mode: str, style: str, new: bool, pdf: str | None, demo: bool) -> int:
    for warning in workspace.warnings:
        print(f"ensemble-tui: {warning}", file=sys.stderr)
    with simulator_context(demo, workspace.paths.root) as env:
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
                workspace, run_ask(engine, run_mode, Style.parse(style), question, sys.stdout, sys.stderr)
            )
            return asyncio.run(cancelled_by_signals(alongside_clean_up(workspace, turn, sys.stderr)))
        except (KeyboardInterrupt, asyncio.CancelledError):
            print("ensemble-tui: cancelled; nothing of this turn was kept.", file=sys.stderr)
            return 130
