"""Test doubles shared by the test folders: scripted providers, a hanging call, no-wait sleeps,
a recording folder opener, and the command line run in this process (or in its own)."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import ensemble_tui
from ensemble_tui.core.provider import CallRequest, ErrorKind, ProviderError, Reply, Usage
from tests.forked import start as start_forked

if TYPE_CHECKING:
    from ensemble_tui.simulator.demo import DemoSimulator


@dataclass
class Hang:
    """Never answer (until cancelled or timed out)."""


@dataclass
class Slow:
    reply: Reply
    seconds: float


@dataclass
class Held:
    """Answer `reply` only once the test sets `release`: a test that must act while a call is
    under way does not race the machine's load."""

    reply: Reply | Callable[[CallRequest], Reply]
    release: threading.Event = field(default_factory=threading.Event)


Step = Reply | ProviderError | Hang | Slow | Held | str | Callable[[CallRequest], "Reply | str"]

# Marker phrases from the shipped prompts, checked in order, that tell a request's role.
_ROLE_MARKERS: list[tuple[str, str]] = [
    ("Your own proposal was Proposed Reply", "synthesis"),
    ("# Proposed Reply 1:", "aggregator"),
    ("You are the chair of a panel", "chairman"),
    ("You are Agent ", "debate"),
    ("did not follow the required format", "debate"),
    ('"critiques"', "critique"),
    ("was not the JSON object", "critique"),
    ("FINAL RANKING:", "ranking"),
]


def role_of(request: CallRequest) -> str:
    """Which role a request plays, read from what the engine put in its last turn; a request
    for JSON through structured output is the claim mapper's."""
    if request.output_schema is not None:
        return "mapper"
    last = request.messages[-1].text
    for marker, role in _ROLE_MARKERS:
        if marker in last:
            return role
    return "proposer"


@dataclass
class ScriptedProvider:
    label: str
    scripts: dict[str, list[Step]] = field(default_factory=dict)  # role -> steps in order
    default: str | None = None
    calls: list[CallRequest] = field(default_factory=list)
    prepared: list[Path] = field(default_factory=list)
    map_calls: list[CallRequest] = field(default_factory=list)  # the claim mapper's, kept apart

    def prepare(self, pdf: Path) -> None:
        self.prepared.append(pdf)

    def calls_as(self, role: str) -> list[CallRequest]:
        return [call for call in self.calls if role_of(call) == role]

    async def complete(self, request: CallRequest) -> Reply:
        role = role_of(request)
        (self.map_calls if role == "mapper" else self.calls).append(request)
        if role == "mapper" and not self.scripts.get("mapper"):  # a test about other things: no map
            raise ProviderError(ErrorKind.FATAL, f"{self.label}: no claim map scripted")
        steps = self.scripts.get(role) or self.scripts.get("any") or []
        step: Step | None = steps.pop(0) if steps else None
        if step is None:
            if self.default is None:
                raise AssertionError(f"{self.label}: unscripted {role} call")
            step = self.default if role != "aggregator" else "FINAL REPLY:\n" + self.default
        if callable(step) and not isinstance(step, (Reply, ProviderError, Hang, Slow, Held)):
            step = step(request)
        if isinstance(step, str):
            step = Reply(step, Usage(input_tokens=1000, output_tokens=200))
        if isinstance(step, Hang):
            await asyncio.Event().wait()
        if isinstance(step, Slow):
            await asyncio.sleep(step.seconds)
            step = step.reply
        if isinstance(step, Held):
            while not step.release.is_set():
                await asyncio.sleep(0.01)
            step = step.reply if isinstance(step.reply, Reply) else step.reply(request)
        if isinstance(step, ProviderError):
            raise step
        return step


def transient(label: str) -> ProviderError:
    return ProviderError(ErrorKind.TRANSIENT, f"{label}: server error (500)")


def overloaded(label: str) -> ProviderError:
    return ProviderError(ErrorKind.OVERLOADED, f"{label}: overloaded (529)")


def fatal(label: str) -> ProviderError:
    return ProviderError(ErrorKind.FATAL, f"{label}: API key rejected (401)")


async def no_sleep(_seconds: float) -> None:
    """The engine's sleep between retries, taking no time."""
    return None


class SleepRecorder:
    """The engine's sleep between retries: records each delay and takes no time."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


class FolderOpener:
    """Records the folders the app asked the desktop to open, and opens none."""

    def __init__(self) -> None:
        self.opened: list[Path] = []

    def __call__(self, path: Path) -> bool:
        self.opened.append(path)
        return False


def unresolved(label: str) -> ProviderError:
    return ProviderError(ErrorKind.UNRESOLVED, f"{label}: host not found (Name or service not known)")


# The folder holding the ensemble_tui these tests import: a spawned `python -m ensemble_tui` gets it
# first on its path, so it runs the code under test, not whichever copy is installed.
SOURCE_ROOT = Path(ensemble_tui.__file__).resolve().parents[1]


# The certificate authorities every SDK client the tests build trusts: one root (ISRG Root X1),
# named by SSL_CERT_FILE (tests/conftest.py sets it for the test processes, process_environment
# for the commands they run). Each SDK client loads its bundle when it is built: ~140 roots took
# 25-50 ms of CPU a client (four in every `ask` or app start; tests/providers, eval, claims, core
# and the top-level files built 991 in one process: 44 s). The tests speak plain HTTP to the
# loopback simulator, so no test ever uses a root; the SDKs still build their verifying
# contexts, from the file the environment names.
TEST_CA_FILE = Path(__file__).resolve().parent / "data" / "one-root-ca.pem"


def process_environment(user_folder: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """A spawned command's whole environment, as a script would have it: PATH, HOME (the user
    folder), no keys, the code under test on PYTHONPATH, the tests' CA bundle (TEST_CA_FILE),
    `env` added (a simulator's addresses)."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(user_folder),
        "PYTHONPATH": str(SOURCE_ROOT),
        "SSL_CERT_FILE": str(TEST_CA_FILE),
        **(env or {}),
    }


def run_command(
    home: Path | None,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    process: bool = False,
    cwd: Path | None = None,
    forked: bool = False,
    read_only: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """`ensemble-tui ARGS --home HOME` as a script would run it: no keys, the user folder and the
    current folder beside the home (else `cwd`), `env` added (a simulator's addresses, or a HOME
    of its own); HOME None: no `--home`. `timeout` bounds a process (spawned or forked) only.

    In this process by default, through the same `cli.main` with the same environment, folder
    and arguments (a process start costs a second of imports); `process=True` spawns
    `python -m ensemble_tui`, for what only an interpreter of its own shows (its start-up and
    exit, the console entry point); `forked=True` runs `cli.main` in a process of its
    own forked with the SDKs imported (tests/forked.py), for what any process shows (its own
    standard streams and exit code, nothing shared with this one, a folder `read_only` for it
    alone)."""
    argv = [*args, "--home", str(home)] if home is not None else list(args)
    beside = home.parent if home is not None else Path.cwd()
    cwd = cwd or beside
    environment = process_environment(beside, env)
    assert forked or read_only is None, "a folder is read-only for a forked run alone"
    if forked:
        assert not process, "a run is spawned or forked"
        command = start_forked(argv, environment, cwd, read_only=read_only)
        out, err = command.communicate(timeout=timeout)
        assert command.returncode is not None  # communicate waited for it
        return subprocess.CompletedProcess(["ensemble-tui", *argv], command.returncode, out, err)
    if process:
        return subprocess.run(
            [sys.executable, "-m", "ensemble_tui", *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=environment,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
        )
    return run_in_process(argv, environment, cwd)


def run_in_process(argv: list[str], environment: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`cli.main(argv)` with `environment` as the whole environment, `cwd` as the current folder,
    an empty stdin and stdout/stderr captured; all restored afterwards. An argparse exit
    (`--help`, `--version`, a bad option) gives its exit code, as the process would."""
    from ensemble_tui.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved_environment, saved_cwd = dict(os.environ), Path.cwd()
    os.environ.clear()
    os.environ.update(environment)
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err), _empty_stdin(), _log_warnings_to(err):
            try:
                code = main(argv)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
                if isinstance(exit_.code, str):
                    print(exit_.code, file=err)
    finally:
        os.environ.clear()
        os.environ.update(saved_environment)
        os.chdir(saved_cwd)
    return subprocess.CompletedProcess(["ensemble-tui", *argv], code, out.getvalue(), err.getvalue())


@contextmanager
def _log_warnings_to(err: io.StringIO) -> Iterator[None]:
    """Log records of WARNING and above on `err`: a process, with no handler configured, prints
    them on its stderr (logging's last resort); in here pytest's handlers would take them."""
    handler = logging.StreamHandler(err)
    handler.setLevel(logging.WARNING)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)


@contextmanager
def _empty_stdin() -> Iterator[None]:
    """stdin at end of file, as `stdin=DEVNULL` gives a process."""
    saved = sys.stdin
    sys.stdin = io.StringIO()
    try:
        yield
    finally:
        sys.stdin = saved


def demo_without_pauses(seed: int | None = None, home: Path | None = None) -> DemoSimulator:
    """`start_demo` without the demo's pauses (0.3-0.8 s a reply, 0.2 s an upload, there for
    people watching): the same replies, account file and uploads, no waiting."""
    from ensemble_tui.simulator.demo import DemoSimulator, account_file

    simulator = DemoSimulator(seed, latency=(0.0, 0.0), account=account_file(home) if home is not None else None)
    for script in simulator.scripts.values():
        script.upload_latency_s = 0.0
    simulator.start()
    return simulator
