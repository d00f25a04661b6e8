"""The turn `ensemble-tui ask` runs (its parser and checks: commands/ask.py): the engine's events
printed as they come, the reply on stdout, status on stderr. Kept apart from the parser so that
`--help` and `--version` import none of it (bench row 5.b)."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Awaitable
from typing import TextIO, assert_never

from ensemble_tui.bootstrap import beside_warm_up
from ensemble_tui.commands.ask_json import dumps, turn_json
from ensemble_tui.commands.context import CommandContext
from ensemble_tui.core.chat.modes import RunMode, Style, parse_run_mode
from ensemble_tui.core.chat.provenance import VoteRow
from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.chat.session import ModelOutput, fork_phrase
from ensemble_tui.core.claims.model import ClaimMap
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.money import cost_phrase, money
from ensemble_tui.core.records.restyle import RestylePlan, plan_restyle, saved_line
from ensemble_tui.core.store.fork import ForkPoint, fork_stored
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.core.turn.assembly import claim_mapper
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import (
    ChatReloaded,
    ClaimsLeftOut,
    ClaimsMapped,
    CostUpdated,
    InputRecorded,
    Notice,
    ProposalReceived,
    ProposerFailed,
    ReplyCommitted,
    Resubmitted,
    RetryScheduled,
    ReviewReceived,
    RunFailed,
    StatusChanged,
    TurnNotSaved,
    TurnRolledBack,
    VoteCounted,
)
from ensemble_tui.core.upload_cleanup import alongside_clean_up
from ensemble_tui.core.workspace import Workspace

REDO_KEPT = "ensemble-tui: the last reply is kept as it was."
MAPPING = "claims: the map is being drawn…"  # after the reply's lines, before the summary


def render_reply(event: ReplyCommitted) -> str:
    """The reply as printed: its text, then a short Sources list when it cites any."""
    if not event.sources:
        return event.text
    sources = "\n".join(f"- {url}" for url in event.sources)
    return f"{event.text}\n\nSources:\n{sources}"


def describe(
    event: StatusChanged | ProposerFailed | Resubmitted | Notice | RetryScheduled | ReviewReceived | VoteCounted,
) -> str:
    """The stderr line for an event that has one."""
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
    return "tally: " + ", ".join(tally_entry(row) for row in event.rows)


def say(line: str, err: TextIO) -> None:
    """One status line on stderr, its control characters stripped: an error text a provider
    sent, or a file name, can carry escape sequences aimed at the terminal."""
    print(strip_control(line), file=err, flush=True)


def cost_line(turn_usd: float, chat_usd: float, *, simulated: bool) -> str:
    """`this turn cost $0.0123 · chat $0.1711`; a demo's turn says what it would cost, simulated."""
    return f"this turn {cost_phrase(turn_usd, simulated=simulated)} · chat {money(chat_usd, simulated=simulated)}"


def tally_entry(row: VoteRow) -> str:
    """One answer's place with what earned it, as the run report gives it: `1. Gemini 9 pts
    (1 first)`, or for a council's ranking `1. Gemini avg position 1.50 (3 ballots)`."""
    if row.average_position is not None:
        return f"{row.rank}. {row.author} avg position {row.average_position:.2f} ({row.ballots} ballots)"
    return f"{row.rank}. {row.author} {row.points:g} pts ({row.first_places} first)"


async def run_ask(
    engine: Engine,
    mode: RunMode,
    style: Style,
    question: str,
    out: TextIO,
    err: TextIO,
    said: frozenset[str] = frozenset(),
    *,
    as_json: bool = False,
    restyle: RestylePlan | None = None,
) -> int:
    """Print the turn's reply (or, `as_json`, the whole turn as one JSON object); 0 once it is
    saved, 1 if it failed or could not be saved (the reply is printed all the same, and the line
    names the recovery file holding it). `said`: problems printed already (a broken provider
    file), not repeated when a proposer is left out for them. `restyle`: the proposals a redo
    reuses (core/records/restyle.py)."""
    unsaved: str | None = None
    outputs: dict[str, ModelOutput] = {}
    simulated = engine.workspace.demo
    before = chat = engine.workspace.session.cost_usd
    committed: ReplyCommitted | None = None
    redo = False
    claims: ClaimMap | None = None
    reuse, reused_from = (restyle.reuse, restyle.reused_from) if restyle is not None else (None, 0)
    async for event in engine.run(mode, question, style, reuse=reuse, reused_from=reused_from):
        match event:  # every event named: a new one fails the type check until it is handled here
            case ProposalReceived():
                outputs[event.provider] = event.output
            case InputRecorded():
                before = chat = engine.workspace.session.cost_usd  # the chat as the turn found it
                redo = event.withdrawn is not None
            case CostUpdated():
                chat = event.session_cost_usd
            case TurnNotSaved():
                unsaved = event.message
            case ReplyCommitted():
                committed, claims = event, event.claims
                if not as_json:  # the reply at once; a claim map still out is awaited after it
                    print(render_reply(event), file=out, flush=True)
                if not event.map_pending:  # else once the map's call is paid for too
                    say(cost_line(chat - before, chat, simulated=simulated), err)
                if event.message.provenance is not None:
                    say(f"reply by: {event.message.provenance.line}", err)
                if event.message.checks:
                    from ensemble_tui.core.paper.quotes import QuoteReport, stderr_lines

                    for line in stderr_lines(QuoteReport.from_record(event.message.checks)):
                        say(line, err)
                if event.map_pending:
                    say(MAPPING, err)
            case ClaimsMapped():
                claims = event.claims
            case ClaimsLeftOut():
                say(event.message, err)
            case RunFailed():
                if chat > before:  # what the calls made before the failure cost
                    say(cost_line(chat - before, chat, simulated=simulated), err)
                say(f"ensemble-tui: {event.message}", err)
                if redo:  # a redo replaces the reply only once its own is stored (issue 34 §1)
                    say(REDO_KEPT, err)
                if unsaved is not None:
                    say(f"ensemble-tui: {unsaved}", err)
                return 1
            case ProposerFailed() if event.message in said:
                continue
            case (
                StatusChanged()
                | ProposerFailed()
                | Resubmitted()
                | Notice()
                | RetryScheduled()
                | ReviewReceived()
                | VoteCounted()
            ):
                if line := describe(event):
                    say(line, err)
            case ChatReloaded() | TurnRolledBack():
                pass
            case _:
                assert_never(event)
    if committed is None:
        return 1
    if as_json:  # the whole turn, its map and the map's cost included, once the map is settled
        turn = turn_json(committed, outputs, last_record(engine), engine.workspace.session.cost_usd, claims)
        print(dumps(turn), file=out, flush=True)
    if committed.map_pending:
        say(cost_line(chat - before, chat, simulated=simulated), err)
    if claims is not None:
        say(f"claims: {claims.summary}", err)
    if unsaved is not None:
        say(f"ensemble-tui: {unsaved}", err)
        return 1
    return 0


def restyle_plan(workspace: Workspace, style: Style) -> RestylePlan:
    """The restyle of the current chat's last turn, said on stderr (raises RestyleRefused)."""
    records = [stored.record for stored in workspace.archive.turns(workspace.session.id)]
    plan = plan_restyle(workspace.session, records, style)
    saved = saved_line(plan.calls_saved, plan.reused_from)
    say(f"restyling the last turn as {style.label}: {saved}", sys.stderr)
    return plan


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


def called_by(workspace: Workspace, mode: RunMode) -> dict[str, object]:
    """The providers a turn in `mode` calls, the only ones `ask` warms up and sends the chat's PDF
    to: its models and, when several answer, the aggregator and the claim mapper. Warming every
    SDK made a one-model `ask` wait for the others' imports (~1.4 s of anthropic and google-genai
    for `--mode chatgpt`) on the provider loop its call shares; uploading to every provider also
    sent the paper where the user had not asked. A provider left out is simply imported by its call."""
    labels = set(workspace.participants(mode))
    if mode.is_multi:
        labels |= {workspace.settings.aggregator, claim_mapper(workspace.settings)}
    return {label: provider for label, provider in workspace.providers.items() if label in labels}


def ask_turn(args: argparse.Namespace, context: CommandContext) -> int:
    """The turn `ask` runs, its arguments checked (commands/ask.py): 0 on a saved reply."""
    workspace, pdf = context.workspace, context.pdf
    said = frozenset(workspace.config_problems.values()) & frozenset(workspace.warnings)
    plan: RestylePlan | None = None
    try:
        if args.restyle is not None:
            plan = restyle_plan(workspace, Style.parse(args.restyle))
            run_mode, run_style = plan.mode, plan.style
        else:
            run_mode = parse_run_mode(args.mode or "all", workspace.extra_providers)
            run_style = Style.parse(args.style or "aggregate")
    except (ValueError, EnsembleError) as exc:
        say(f"ensemble-tui: {exc}", sys.stderr)
        return 2
    if (refused := workspace.refusal(run_mode)) is not None:  # as the app refuses it: no chat made, none changed
        say(f"ensemble-tui: {refused}", sys.stderr)
        return 1
    if args.style is not None and not run_mode.is_multi:  # it runs all the same, as the app's would
        say(f"note: --style {args.style} is how several models deliberate; {run_mode.label} answers alone", sys.stderr)
    workspace.upload_to = frozenset(called_by(workspace, run_mode))
    try:
        if args.fork is not None:
            try:
                workspace.session = fork_stored(workspace.store, ForkPoint.parse(args.fork))
            except OSError as exc:
                say(f"ensemble-tui: the branch cannot be saved ({exc.strerror or exc}); nothing was asked", sys.stderr)
                return 1
            branch = workspace.session
            say(
                f"new chat {branch.id}: a branch of {branch.parent_id}, {fork_phrase(branch.fork_turn or 0)}",
                sys.stderr,
            )
        if args.new:
            try:
                workspace.new_chat()
            except OSError:  # not saved: the turn runs, then says so (exit 1, its reply recovered)
                workspace.session = workspace.store.new_session(workspace.session, save=False)
        if pdf:
            try:
                workspace.select_pdf(pdf)
            except OSError:  # chosen for this turn all the same; the turn's save says what failed
                pass
    except EnsembleError as exc:
        say(f"ensemble-tui: {exc}", sys.stderr)
        return 2
    workspace.prepare_uploads()
    engine = Engine(workspace)
    try:
        turn = beside_warm_up(
            called_by(workspace, run_mode),
            run_ask(
                engine,
                run_mode,
                run_style,
                args.question,
                sys.stdout,
                sys.stderr,
                said,
                as_json=args.as_json,
                restyle=plan,
            ),
        )
        return asyncio.run(cancelled_by_signals(alongside_clean_up(workspace, turn, sys.stderr)))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("ensemble-tui: cancelled; nothing of this turn was kept.", file=sys.stderr)
        return 130
