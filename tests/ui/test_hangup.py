"""A closed terminal ends the app even when its event loop is stuck (ui/hangup.py).

The child runs in a pseudo-terminal and, like the app caught in Textual's writer queue after a
hangup, ignores SIGHUP's default action and never returns from its main thread: only the watch
on the terminal can end it. Closing the pty's master side is what closing a terminal tab does.
"""

from __future__ import annotations

import os
import pty
import signal
import sys
import time

import pytest

from ensemble_tui.ui.hangup import GRACE_S

CHILD = """
import os, signal, sys, threading
from ensemble_tui.ui.hangup import end_on_hangup
signal.signal(signal.SIGHUP, lambda *_: None)  # the app's handler, which a stuck loop never runs
end_on_hangup()
os.write(1, b"watching")  # one write: done once the test reads it (a print could still be flushing)
threading.Event().wait()  # the stuck main thread
"""


def wait_exit(pid: int, timeout_s: float) -> int | None:
    """The child's wait status once it has ended, or None if it is still running."""
    deadline = time.monotonic() + timeout_s
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminals only")
def test_a_process_stuck_after_its_terminal_closed_ends_within_the_grace() -> None:
    pid, master = pty.fork()
    if pid == 0:
        os.execv(sys.executable, [sys.executable, "-c", CHILD])
    try:
        seen = b""
        deadline = time.monotonic() + 30
        while b"watching" not in seen and time.monotonic() < deadline:
            try:
                seen += os.read(master, 1024)
            except OSError:
                break
        assert b"watching" in seen, seen
        closed = time.monotonic()
        os.close(master)  # the terminal goes away
        master = -1
        status = wait_exit(pid, GRACE_S + 20)
        pid = 0 if status is not None else pid
        assert status is not None, "the process outlived its terminal"
        assert os.waitstatus_to_exitcode(status) == 128 + signal.SIGHUP
        assert time.monotonic() - closed >= GRACE_S - 0.5  # the app had its time to quit in order
    finally:
        if master >= 0:
            os.close(master)
        if pid and wait_exit(pid, 0) is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
