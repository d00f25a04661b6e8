"""`ensemble-tui ARGS` in a process of its own, forked from a server that imported the app and
the SDKs once.

The tests that run several processes at once (parallel asks on one chat, the cap across
processes, four asks on one home) test what processes share: the ledger, the archive, their
locks. A spawned `python -m ensemble_tui ask` first paid 2-7 s of CPU importing openai,
anthropic and google-genai, which none of those tests is about: eight of them at once were
most of a minute of the suite's two cores. A process forked from multiprocessing's forkserver,
with those modules imported beforehand (`set_forkserver_preload`), is still a process of its
own (its pid, its environment and folder, its signals, its exit code, its files, its own
ledger and archive connections); only the imports are shared. The same holds for one run whose
stdout, exit code or signal a test reads (`start`, `tests.support.run_command(forked=True)`),
and for code that needs a process that imported the SDKs but ran nothing of them yet
(`run_python`: the server never runs a test). What only an interpreter of its own shows (its
start-up and exit, import-time behaviour, the console entry point, a terminal) still spawns
`python -m ensemble_tui`.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TextIO

# What a forked `ask` would otherwise import: the command line, the turn, the three SDKs.
PRELOAD = [
    "ensemble_tui.cli",
    "ensemble_tui.commands.ask_turn",
    "ensemble_tui.core.turn.engine",
    "ensemble_tui.providers.registry",
    "ensemble_tui.simulator.demo",
    "openai",
    "anthropic",
    "google.genai",
    "tests.forked",
]

CLONE_NEWNS = 0x00020000  # <sched.h>: a mount namespace of its own

_context = multiprocessing.get_context("forkserver")
_context.set_forkserver_preload(PRELOAD)


def _in_child(
    run: Callable[..., int | None],
    run_args: tuple[object, ...],
    environment: dict[str, str],
    cwd: str,
    out_path: str,
    err: str | Connection,
    read_only: str | None,
) -> None:
    """In the forked process: the environment, folder and standard streams a spawned command
    would have (stderr a file, or the write end of a pipe the test reads), `read_only` made
    read-only for it alone, then `run(*run_args)`; what it returns is the process's exit code."""
    os.environ.clear()
    os.environ.update(environment)
    os.chdir(cwd)
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, out_path, os.O_WRONLY)):
        opened = os.open(path, flags)
        os.dup2(opened, fd)
        os.close(opened)
    if isinstance(err, Connection):
        os.dup2(err.fileno(), 2)
        err.close()
    else:
        opened = os.open(err, os.O_WRONLY)
        os.dup2(opened, 2)
        os.close(opened)
    if read_only is not None:
        _bind_read_only(read_only)
    code = run(*run_args)
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(code)


def _bind_read_only(folder: str) -> None:
    """This process in a mount namespace of its own in which `folder` is bound read-only onto
    itself: what `unshare -m sh -c 'mount --bind -o ro FOLDER FOLDER && exec ...'` gives a
    command (root only; the mounts of every other process are left as they are)."""
    if ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS) failed")
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)  # as unshare(1) does by default
    subprocess.run(["mount", "--bind", "-o", "ro", folder, folder], check=True)


def _cli(argv: list[str]) -> int:
    from ensemble_tui.cli import main

    return main(argv)


def _python(code: str) -> None:
    """`code` run as `python -c` runs it: as the main module (an exception: exit code 1, its
    traceback on stderr)."""
    exec(compile(code, "<string>", "exec"), {"__name__": "__main__"})


class ForkedCommand:
    """A forked process running `ensemble-tui ARGS` (`start`) or Python code (`run_python`), read
    as `subprocess.Popen` is: `communicate()` waits and gives (stdout, stderr); `returncode` is
    its exit code (-N for a signal N); `pid` and `send_signal` reach the process itself; with
    `stderr_pipe`, `stderr` reads its stderr while it runs (a pipe, as `stderr=PIPE` gives)."""

    def __init__(
        self,
        run: Callable[..., int | None],
        run_args: tuple[object, ...],
        environment: dict[str, str],
        cwd: Path,
        stderr_pipe: bool = False,
        read_only: Path | None = None,
    ) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="forked-")
        self._out = Path(self._folder.name) / "stdout"
        self._err = Path(self._folder.name) / "stderr"
        self._out.touch()
        self._err.touch()
        self.stderr: TextIO | None = None
        err: str | Connection = str(self._err)
        if stderr_pipe:
            reader, err = _context.Pipe(duplex=False)
            self.stderr = open(os.dup(reader.fileno()), encoding="utf-8")  # noqa: SIM115 (closed by communicate)
            reader.close()
        self._process = _context.Process(
            target=_in_child,
            args=(run, run_args, environment, str(cwd), str(self._out), err, str(read_only) if read_only else None),
        )
        # The forkserver's resource tracker hands the caller's stderr to its child. Inside
        # `App.run_test` that is Textual's print capture, whose fileno() is -1, and the start
        # fails ("bad value(s) in fds_to_keep") unless an earlier test had started the server.
        with contextlib.redirect_stderr(sys.__stderr__):
            self._process.start()
        if isinstance(err, Connection):
            err.close()  # the child's copy is its stderr: the pipe ends when the process does
        self.pid = self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.exitcode

    def send_signal(self, signum: int) -> None:
        """As Popen's: nothing once the process has ended (its pid is free for another)."""
        if self._process.exitcode is None:  # until this process waits for it, its pid stays its own
            os.kill(self._process.pid, signum)

    def _read_rest(self, into: list[str]) -> None:
        if self.stderr is not None:
            into.append(self.stderr.read())

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        """Waits for the process and gives its stdout and stderr (with a pipe, what was not read
        yet: read meanwhile, so a full pipe never blocks it)."""
        rest: list[str] = []
        reading = threading.Thread(target=self._read_rest, args=(rest,))
        reading.start()
        self._process.join(timeout)
        if self._process.exitcode is None:
            self._process.kill()
            self._process.join()
            reading.join()
            raise TimeoutError(f"the forked process did not finish within {timeout} s")
        reading.join()
        try:
            err = "".join(rest) if self.stderr else self._err.read_text(encoding="utf-8")
            return self._out.read_text(encoding="utf-8"), err
        finally:
            if self.stderr:
                self.stderr.close()
            self._folder.cleanup()


def start(
    argv: list[str], environment: dict[str, str], cwd: Path, stderr_pipe: bool = False, read_only: Path | None = None
) -> ForkedCommand:
    """`ensemble-tui ARGV` in a forked process with `environment` as its whole environment and
    `cwd` as its folder, stdin empty, stdout and stderr kept for `communicate` (stderr readable
    meanwhile with `stderr_pipe`), the folder `read_only` read-only for it alone."""
    return ForkedCommand(_cli, (argv,), environment, cwd, stderr_pipe, read_only)


def run_python(code: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """`python -c CODE` with this process's environment and folder, in a process forked from the
    server: a process that imported the app and the SDKs and has run nothing of them."""
    command = ForkedCommand(_python, (code,), dict(os.environ), Path.cwd())
    out, err = command.communicate(timeout=timeout)
    assert command.returncode is not None  # communicate waited for it
    return subprocess.CompletedProcess([sys.executable, "-c", code], command.returncode, out, err)
