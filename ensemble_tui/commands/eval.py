"""`ensemble-tui eval`: do the ensemble's arms answer the user's own questions better than one model?

It reads the questions, says what the eval will cost and asks before spending (or `--yes`),
runs every arm on every question with a progress bar on stderr, has the judges compare the
answers (eval/judging.py) and writes the report (eval/report.py). Answers and verdicts
are kept as they come, so the same command run again after a kill goes on where it stopped.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import math
import sqlite3
import sys
import uuid
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ensemble_tui.commands.context import CommandContext, Needs, add_demo, say
from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.text.counts import plural

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace

FORMATS = ("md", "json", "html")
# The arms run without --arms, as plain names (eval/arms.py parses them when the command runs):
# importing the arms made `--help` and `--version` import the engine and pydantic (bench row 5.b).
DEFAULT_ARMS = ("chatgpt", "claude", "gemini", "all")
NO_CAP_USD = 1e9  # without --budget: no cap but the confirmation (the ledger needs a figure)


def add_parser(commands: Any) -> None:
    """The `eval` subcommand, with `--home` and `--demo` as the other commands have them."""
    parser = commands.add_parser(
        "eval",
        help="compare single models and ensembles on your own questions, judged blind",
        description="Run every arm (single models and ensembles) on each question, have the models judge "
        "the answers blind and in both orders, and write a report: win rates against the best single model, "
        "dollars, calls, latency and verified quotes. A rerun with the same arguments resumes.",
    )
    parser.add_argument(
        "--home", metavar="DIR", default=argparse.SUPPRESS, help="the home folder whose chats and keys to use"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--questions",
        metavar="FILE",
        help="one question per line; or JSON (a list, or one object a line) of {question, pdf, answer, evidence}: "
        "a question with a known answer is graded against it (QASPER's fields are read too)",
    )
    source.add_argument("--from-history", metavar="N", type=int, help="the last N questions of your chats")
    parser.add_argument(
        "--arms",
        default=",".join(DEFAULT_ARMS),
        help="comma-separated: chatgpt, claude, gemini (any added provider), self-K, all, council, vote, debate, "
        f"auto (default: {','.join(DEFAULT_ARMS)})",
    )
    parser.add_argument(
        "--samples", metavar="K", type=int, default=3, help="K of an arm named plain `self` (default 3)"
    )
    parser.add_argument("--self-model", metavar="MODEL", help="the model self-K samples (default: the aggregator)")
    parser.add_argument("--judges", metavar="LIST", help="comma-separated judges (default: every available model)")
    parser.add_argument("--budget", metavar="USD", type=float, help="a hard cap on what the whole eval may spend")
    parser.add_argument("--yes", action="store_true", help="spend without asking (needed without a terminal)")
    parser.add_argument("--format", choices=FORMATS, default="md", help="the report's format (default md)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report here (default: stdout)")
    add_demo(parser, "the demo's chats (as `ask --demo` keeps them)")


def budget_check(args: argparse.Namespace) -> str | None:
    """A `--budget` that is no amount of dollars ($0 or less, nan, inf): the line that says so
    (exit 2, nothing started)."""
    if args.budget is not None and (not math.isfinite(args.budget) or args.budget <= 0):
        return f"--budget must be an amount of dollars more than $0, such as --budget 5 (not {args.budget:g})."
    return None


# Under --demo the eval demo's simulator answers: answers of known quality. No paper is uploaded
# as the command starts: each call of the eval carries its question's paper to its own provider,
# so a provider the eval does not call gets nothing.
NEEDS = Needs(simulator="eval", check=budget_check, upload_now=False)


def run(args: argparse.Namespace, context: CommandContext) -> int:
    try:
        return _run(context.workspace, args, context.demo)
    except EnsembleError as exc:
        say(str(exc))
        return 2
    except KeyboardInterrupt:
        say("eval interrupted; what was done is kept - run the same command again to go on.")
        return 130
    except (sqlite3.Error, OSError) as exc:  # a read-only home, a full disk: what was kept stays kept
        say(f"eval stopped: the home's History.sqlite3 cannot be written ({storage_reason(exc)}). {STORAGE_ADVICE}")
        return 1


STORAGE_ADVICE = "Free some space or make the home writable, then run the same command again to go on."


def storage_reason(exc: BaseException) -> str:
    """The storage error in a few words: "read-only", "disk full", or its own first line."""
    text = (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).splitlines()[0]
    lowered = text.casefold()
    if "readonly" in lowered or "read-only" in lowered:
        return "the home is read-only"
    if "full" in lowered or getattr(exc, "errno", None) == errno.ENOSPC:
        return "the disk is full"
    return text


def _run(workspace: Workspace, args: argparse.Namespace, demo: bool) -> int:
    from ensemble_tui.core.workspace import read_only
    from ensemble_tui.eval.arms import parse_arms, provider_label
    from ensemble_tui.eval.estimate import estimate
    from ensemble_tui.eval.model import EvalPlan
    from ensemble_tui.eval.report import Totals, figure, total_lines
    from ensemble_tui.eval.runner import EvalRunner
    from ensemble_tui.eval.store import EvalStore

    if (problem := read_only(workspace.paths.root)) is not None:  # nothing it did could be kept
        if problem not in workspace.warnings:  # else the set-up said it already, in these words
            say(problem)
        return 1
    questions = read_questions(workspace, args, demo)
    configured = tuple(workspace.configs)
    self_model = provider_label(args.self_model or workspace.settings.aggregator, configured)
    arms = parse_arms(args.arms, configured, args.samples, self_model)
    available = tuple(p for p in configured if p in workspace.providers)
    judges = (
        tuple(provider_label(j, configured) for j in args.judges.split(",") if j.strip()) if args.judges else available
    )
    if not judges:
        raise EnsembleError("No judge is available - set an API key, or name judges with --judges.")
    plan = EvalPlan(
        arms=tuple(a.name for a in arms),
        judges=judges,
        samples=args.samples,
        self_model=self_model,
        budget_usd=args.budget,
        questions=tuple(questions),
    )
    store = EvalStore(workspace.archive, ledger_key(plan), run=uuid.uuid4().hex[:12])
    kit = arm_kit(workspace, store, args.budget, demo)
    runner = EvalRunner(plan, arms, kit, store, judge_function(workspace), grade_question=grade_function(workspace))
    left = runner.left()
    guess = estimate(kit, arms, questions, judges, left)
    spent = store.spent()
    already = f"; {figure(spent, demo)} spent on it before" if spent else ""
    cap = f", capped at {figure(args.budget, demo)} for the eval in all" if args.budget is not None else ""
    graded = sum(1 for q in questions if q.graded)
    kinds = f" ({graded} with a known answer, graded)" if graded else ""
    say(
        f"eval: {plural(len(questions), 'question')}{kinds} x {plural(len(arms), 'arm')}, "
        f"judged by {', '.join(judges)}: "
        f"estimated {figure(guess.usd, demo)} for what is left ({guess.basis()}){cap}{already}."
    )
    if not guess.nothing_left and not args.yes:
        if not sys.stdin.isatty():
            say("no terminal to ask whether to spend it: pass --yes to run the eval.")
            return 2
        if input("Go ahead? [y/N] ").strip().lower() not in ("y", "yes"):
            say("nothing spent.")
            return 1
    result = run_with_progress(runner, len(questions), demo)
    totals = Totals(
        run_usd=result.run_spent_usd,
        eval_usd=result.spent_usd,
        reused=result.reused,
        asked=result.asked,
        estimate_usd=guess.usd,
        basis=guess.basis(),
        simulated=demo,
    )
    write_report(plan, result, args, totals)
    for line in total_lines(totals):
        say(line)
    if result.stopped:
        say(f"{result.stopped} The report covers what was done; raise --budget and run again to go on.")
        return 1
    return 0


def read_questions(workspace: Workspace, args: argparse.Namespace, demo: bool) -> list[Any]:
    from ensemble_tui.core.chat.session import ChatMessage
    from ensemble_tui.eval.questions import from_file, from_history, make_question

    if args.questions:
        return from_file(Path(args.questions).expanduser())
    count = args.from_history
    if count is None or count < 1:
        raise EnsembleError("--from-history needs a number of questions, 1 or more.")
    questions = from_history(workspace.store, count)
    if demo and len(questions) < count:  # a demo home without chats enough: the demo's own questions
        from ensemble_tui.simulator.eval_demo import DEMO_HISTORY, DEMO_QUESTIONS

        before = [ChatMessage(role="user", text=DEMO_HISTORY[0]), ChatMessage(role="assistant", text=DEMO_HISTORY[1])]
        from ensemble_tui.bootstrap import demo_paper

        paper = str(demo_paper())
        questions += [make_question(text, paper, before) for text in DEMO_QUESTIONS[: count - len(questions)]]
    if not questions:
        raise EnsembleError("Your chats hold no answered question yet - ask some first, or use --questions FILE.")
    return questions


def ledger_key(plan: Any) -> str:
    """The eval's key in the budget ledger: its questions. Every run on the same questions is
    the same eval, whatever its arms and judges, so "spent by this eval in all" and the
    `--budget` cap count what earlier runs (killed ones included) spent."""
    parts = sorted(q.id for q in plan.questions)
    return "eval-" + hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]


def arm_kit(workspace: Workspace, store: Any, budget: float | None, demo: bool) -> Any:
    from ensemble_tui.core.chat.modes import Mode
    from ensemble_tui.core.store.budget_ledger import SqliteLedger
    from ensemble_tui.eval.arms import ArmKit

    return ArmKit(
        providers=workspace.providers,
        configs=workspace.configs,
        settings=workspace.settings,
        prompts=workspace.prompts,
        participants=workspace.participants(Mode.ALL),
        ledger=lambda: SqliteLedger(workspace.archive, store.ledger_key, store.turn_id()),
        cache=workspace.paths.cache,
        budget_usd=budget if budget is not None else NO_CAP_USD,
        simulated=demo,
    )


def judge_function(workspace: Workspace) -> Any:
    """eval/judging.py's `judge_question` with the home's judge prompts, the configured model
    ids among the names taken out of the answers the judges read, and the paper's text cache
    for the quote checks the judges are told."""
    from ensemble_tui.eval.judging import judge_question

    return partial(judge_question, prompts=workspace.prompts, names=model_ids(workspace), cache=workspace.paths.cache)


def grade_function(workspace: Workspace) -> Any:
    """eval/grading.py's `grade_question`, bound as `judge_function` binds the judges'."""
    from ensemble_tui.eval.grading import grade_question

    return partial(grade_question, prompts=workspace.prompts, names=model_ids(workspace), cache=workspace.paths.cache)


def model_ids(workspace: Workspace) -> list[str]:
    models = [workspace.settings.model_for(label, workspace.configs) for label in workspace.configs]
    return [model for model in models if model]


def time_left(elapsed_s: float, done: int, total: int) -> str:
    """ "about 4m 00s left", from the pace of the questions done so far. Rich's own column read
    its speed from the updates of its last 30 s, which an eval (one question can take minutes)
    rarely has, and showed 0:00:00 throughout (issue 35)."""
    if done >= total:
        return "done"
    if done <= 0 or elapsed_s <= 0:
        return "time left: estimating"
    seconds = round(elapsed_s / done * (total - done))
    hours, rest = divmod(seconds, 3600)
    clock = f"{hours}h {rest // 60:02d}m" if hours else f"{rest // 60}m {rest % 60:02d}s"
    return f"about {clock} left"


def run_with_progress(runner: Any, total: int, demo: bool) -> Any:
    """The eval with a progress bar on stderr: questions done, dollars spent, time left."""
    import asyncio
    import time

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from ensemble_tui.core.money import money

    columns = (
        TextColumn("eval"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("questions · {task.fields[spent]} · {task.fields[left]}"),
    )
    started = time.monotonic()
    with Progress(*columns, console=Console(stderr=True), transient=False) as progress:
        task = progress.add_task("eval", total=total, spent=money(0.0, simulated=demo), left=time_left(0, 0, total))

        def update(done: int, spent: float) -> None:
            left = time_left(time.monotonic() - started, done, total)
            progress.update(task, completed=done, spent=money(spent, simulated=demo), left=left)

        runner.progress = update
        return asyncio.run(runner.run())


def write_report(plan: Any, result: Any, args: argparse.Namespace, totals: Any = None) -> None:
    content = render(plan, result, args.format, totals)
    if args.output:
        from ensemble_tui.commands.export import write_output

        write_output(Path(args.output), content)
        say(f"report written to {args.output}")
    else:
        sys.stdout.write(content if content.endswith("\n") else content + "\n")
        sys.stdout.flush()


def render(plan: Any, result: Any, fmt: str, totals: Any = None) -> str:
    from ensemble_tui.eval.report import render as render_report

    return render_report(plan, result.answer_list(), result.verdicts, fmt, result.grades, totals)
