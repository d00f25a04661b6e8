"""The set-up every command shares, in one context manager: the home opened, the log file, the
home's warnings on stderr, the demo's simulator and the providers; all undone, in reverse, when
the command ends.

Each command declares what it needs (`Needs`) and receives what was set up (`CommandContext`);
none of them starts a simulator or attaches providers on its own, so `--demo` means the same
thing to every command and the providers always close in the same order.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ensemble_tui import bootstrap

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace
    from ensemble_tui.simulator.standby import StandbyDemo

Home = Literal["none", "read", "write"]
Simulator = Literal["demo", "standby", "eval"]


@dataclass(frozen=True)
class Needs:
    """What a command needs before it runs.

    `home`: "write" opens it (created and seeded if new) with its log file, warnings, simulator
    and providers; "read" only reads it, writing nothing, not even a log; "none" opens no home.
    `simulator`: which one answers under `--demo` ("standby": the app's, started after its first
    frame). `warnings`: the home's warnings as lines on stderr (the app shows them itself).
    `upload_now`: the PDF's uploads start with the providers (else the command starts them).
    `owns_process`: no automatic garbage collection while it starts (the app).
    `check`: the arguments' own check, run before anything but the home: the line to print, or None.
    """

    home: Home = "write"
    simulator: Simulator = "demo"
    warnings: bool = True
    upload_now: bool = True
    owns_process: bool = False
    check: Callable[[argparse.Namespace], str | None] | None = None


class SetUpFailed(Exception):
    """The command cannot start: one line for stderr, exit code 2."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


@dataclass(frozen=True)
class CommandContext:
    """What the set-up gives a command: the options every command reads alike, the home, and the
    app's simulator on standby."""

    demo: bool = False
    pdf: str | None = None
    home: Workspace | None = None
    standby: StandbyDemo | None = None

    @property
    def workspace(self) -> Workspace:
        if self.home is None:
            raise RuntimeError("this command opens no home")  # a Needs(home="none") command asked for one
        return self.home


def add_common(parser: argparse.ArgumentParser) -> None:
    """`--home`, `--pdf` and `--demo`, as the app and `ask` take them."""
    parser.add_argument(
        "--home",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="home folder for prompts, configurations and chats (default: $ENSEMBLE_TUI_HOME, the current "
        "folder if you trusted it with `ensemble-tui trust`, else the user data folder)",
    )
    parser.add_argument("--pdf", metavar="PATH", default=argparse.SUPPRESS, help="select this PDF for the session")
    add_demo(parser, "run against the built-in simulator: no API keys, no network")


def bad_pdf(args: argparse.Namespace) -> str | None:
    """A `--pdf` that is not there, or is not a PDF: the line that says so (exit 2, before the app
    takes the terminal). A path never selected is not one that "no longer exists", as a chat's
    vanished PDF is."""
    from ensemble_tui.core.errors import PdfError
    from ensemble_tui.core.paper.pdf import check_pdf

    pdf = getattr(args, "pdf", None)
    if not pdf:
        return None
    if not Path(pdf).expanduser().exists():
        return f"the PDF {pdf} does not exist - check the path given to --pdf"
    try:
        check_pdf(pdf)
    except PdfError as exc:
        return str(exc)
    return None


def add_demo(parser: argparse.ArgumentParser, help: str) -> None:
    """`--demo`: the demo's own home folder (bootstrap.demo_home), unless `--home` names one."""
    parser.add_argument("--demo", action="store_true", default=argparse.SUPPRESS, help=help)


def say(line: str) -> None:
    """One `ensemble-tui: ` line on stderr, its control characters stripped (a warning can quote
    a file's name or content)."""
    from ensemble_tui.core.text.sanitize import strip_control

    print(f"ensemble-tui: {strip_control(line)}", file=sys.stderr, flush=True)


@contextmanager
def command_context(args: argparse.Namespace, needs: Needs) -> Iterator[CommandContext]:
    """Set up what `needs` asks for, in this order: the collector's hold, the home, the
    arguments' check, the log file, the warnings, the simulator, the providers. Raises
    SetUpFailed (before the command runs) when the home is unusable or the check refuses."""
    demo: bool = getattr(args, "demo", False)
    pdf: str | None = getattr(args, "pdf", None)
    if needs.home == "none":
        yield CommandContext(demo=demo, pdf=pdf)
        return
    from ensemble_tui.core.errors import EnsembleError

    with ExitStack() as stack:
        stack.enter_context(bootstrap.collector_hold(needs.owns_process))
        try:
            workspace = bootstrap.open_workspace(getattr(args, "home", None), demo, for_reading=needs.home == "read")
        except EnsembleError as exc:
            raise SetUpFailed(str(exc)) from exc
        stack.callback(bootstrap.shut_down, workspace)  # last: once the simulator has stopped
        if needs.check is not None and (problem := needs.check(args)):
            raise SetUpFailed(problem)
        standby: StandbyDemo | None = None
        if needs.home == "write":
            from ensemble_tui.logs import configure_logging

            configure_logging(workspace.paths.logs)
            for warning in workspace.warnings if needs.warnings else ():
                say(warning)
            root = workspace.paths.root  # the simulator's provider account is kept in the home
            if needs.simulator == "standby":
                standby = stack.enter_context(bootstrap.demo_on_standby(demo, root))
                env = standby.env if standby else None
            elif needs.simulator == "eval":
                env = stack.enter_context(bootstrap.eval_simulator(demo, root))
            else:
                env = stack.enter_context(bootstrap.simulator_context(demo, root))
            bootstrap.attach_providers(workspace, env, pdf, prepare=needs.upload_now)
        yield CommandContext(demo=demo, pdf=pdf, home=workspace, standby=standby)
