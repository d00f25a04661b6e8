"""`ensemble-tui ARGS` in a process of its own, forked from a server that imported the app and
the SDKs once.

The tests that run several processes at once (parallel asks on one chat, the cap across
processes, four asks on one home) test what processes share: the ledger, the archive, their
locks. A spawned `python -m ensemble_tui ask` first paid 2-7 s of CPU importing openai,
anthropic and google-genai, which none of those tests is about: eight of them at once were
most of a minute of the suite's two cores. A process forked from multiprocessing's forkserver,
with those modules imported beforehand (`set_forkserver_preload`), is still a process of its
own (its pid, its environment and folder, its signals, its exit code, its files, its own
ledger and archive connections); only the imports are shared. What only an interpreter of its
own shows (its exit, the console entry point, a terminal) still spawns `python -m ensemble_tui`.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import tempfile
from pathlib import Path

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

_context = multiprocessing.get_context("forkserver")
_context.set_forkserver_preload(PRELOAD)


def _run_cli(argv: list[str], environment: dict[str, str], cwd: str, out_path: str, err_path: str) -> None:
    """In the forked process: the environment, folder and standard streams a spawned command
    would have, then `cli.main(argv)`; its code is the process's exit code."""
    os.environ.clear()
    os.environ.update(environment)
    os.chdir(cwd)
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, out_path, os.O_WRONLY), (2, err_path, os.O_WRONLY)):
        opened = os.open(path, flags)
        os.dup2(opened, fd)
        os.close(opened)
    from ensemble_tui.cli import main

    code = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(code)


class ForkedCommand:
    """A running `ensemble-tui ARGS` (started by `start`), read as `subprocess.Popen` is:
    `communicate()` waits and gives (stdout, stderr); `returncode` is its exit code (-N for a
    signal N); `pid` and `send_signal` reach the process itself."""

    def __init__(self, argv: list[str], environment: dict[str, str], cwd: Path) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="forked-")
        self._out = Path(self._folder.name) / "stdout"
        self._err = Path(self._folder.name) / "stderr"
        self._out.touch()
        self._err.touch()
        self._process = _context.Process(
            target=_run_cli, args=(argv, environment, str(cwd), str(self._out), str(self._err))
        )
        # The forkserver's resource tracker hands the caller's stderr to its child. Inside
        # `App.run_test` that is Textual's print capture, whose fileno() is -1, and the start
        # fails ("bad value(s) in fds_to_keep") unless an earlier test had started the server.
        with contextlib.redirect_stderr(sys.__stderr__):
            self._process.start()
        self.pid = self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.exitcode

    def send_signal(self, signum: int) -> None:
        os.kill(self._process.pid, signum)

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        self._process.join(timeout)
        if self._process.exitcode is None:
            self._process.kill()
            self._process.join()
            raise TimeoutError(f"ensemble-tui did not finish within {timeout} s")
        try:
            return self._out.read_text(encoding="utf-8"), self._err.read_text(encoding="utf-8")
        finally:
            self._folder.cleanup()


def start(argv: list[str], environment: dict[str, str], cwd: Path) -> ForkedCommand:
    """`ensemble-tui ARGV` in a forked process with `environment` as its whole environment and
    `cwd` as its folder, stdin empty, stdout and stderr kept for `communicate`."""
    return ForkedCommand(argv, environment, cwd)
