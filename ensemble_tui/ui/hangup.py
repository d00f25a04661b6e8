"""A closed terminal ends the app, whatever its event loop is doing.

When a terminal goes away (a tab closed, an SSH link lost, `tmux kill-server`) the kernel hangs
up its tty: SIGHUP and SIGCONT to the foreground process group, EIO on every later write. The
app quits on SIGHUP (ui/app.py), but that handler runs on the event loop, and the loop can be
stuck for good: Textual's SIGCONT handler restarts application mode (a new writer thread) while
the app shuts down, the writer thread dies on EIO, and the loop then blocks for ever putting the
next escape code into the dead writer's full queue (`App._shutdown` -> `LinuxDriver.write` ->
`Queue.put`, seen with py-spy). Such a process ran for an hour, its demo simulator polling,
holding the home.

So a daemon thread waits for the terminal's hangup (`poll`, no CPU until then). The app then has
`GRACE_S` to quit in order (the run stopped, its question kept, the provider loop wound down),
after which the process ends with a hangup's status (128 + SIGHUP). Nothing is lost that a kill
would not lose: every file is written atomically and the chats are rows of SQLite.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import sys
import threading
import time

GRACE_S = 5.0
log = logging.getLogger(__name__)


def end_on_hangup(fd: int | None = None, grace_s: float = GRACE_S) -> None:
    """Watch the terminal on `fd` (default: stdin) from a daemon thread; without a terminal,
    nothing to watch."""
    if fd is None:
        if sys.__stdin__ is None:
            return
        fd = sys.__stdin__.fileno()
    try:
        if not os.isatty(fd):
            return
        watched = os.dup(fd)  # its own descriptor: the watch outlives anyone closing `fd`
    except OSError:
        return
    threading.Thread(target=_watch, args=(watched, grace_s), name="ensemble-tui-hangup", daemon=True).start()


def _watch(fd: int, grace_s: float) -> None:
    poller = select.poll()
    poller.register(fd, 0)  # no events asked for: poll reports only POLLHUP, POLLERR and POLLNVAL
    while True:
        flags = next((flags for _fd, flags in poller.poll()), 0)
        if flags & select.POLLNVAL:
            return
        if flags & (select.POLLHUP | select.POLLERR):
            break
    # Logged from a thread of its own: a stuck loop could hold the logging lock.
    threading.Thread(target=log.warning, args=("the terminal hung up; ending the app",), daemon=True).start()
    time.sleep(grace_s)
    os._exit(128 + signal.SIGHUP)
