"""`ensemble-tui --demo`'s simulator: its port open before the app's first frame, its server after.

Building the demo simulator (the HTTP server, the simulated APIs, the scripts) took 15 ms of a
start-up that users wait through. The providers need only its address, so the port is bound and
listening at once and `start()` builds the server on it when the app has drawn itself. A request
sent before then waits in the port's backlog and is answered once the server runs.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ensemble_tui.simulator.addresses import environment

if TYPE_CHECKING:
    from ensemble_tui.simulator.demo import DemoSimulator

HOST = "127.0.0.1"


class StandbyDemo:
    """The demo simulator's address now (`env`), its server from `start()` on."""

    def __init__(self, seed: int | None = None, home: Path | None = None) -> None:
        """`home`: the home folder that keeps the demo account (none kept without one)."""
        self._seed = seed
        self._home = home
        self._listening: socket.socket | None = socket.create_server((HOST, 0))
        self.url = "http://{}:{}".format(*self._listening.getsockname()[:2])
        self.demo: DemoSimulator | None = None

    @property
    def env(self) -> dict[str, str]:
        """The variables for `build_providers`, as `DemoSimulator.env` will be."""
        return environment(self.url)

    def start(self) -> None:
        """Serve on the port; once only, and not after `stop()`."""
        if self._listening is None:
            return
        from ensemble_tui.simulator.demo import DemoSimulator
        from ensemble_tui.simulator.demo_account import account_file

        listening, self._listening = self._listening, None
        demo = DemoSimulator(self._seed, account=account_file(self._home) if self._home is not None else None)
        demo.start(listening=listening)
        self.demo = demo

    def stop(self) -> None:
        if self.demo is not None:
            self.demo.stop()
        elif self._listening is not None:
            self._listening.close()
        self._listening = None


@contextmanager
def standby_demo(seed: int | None = None, home: Path | None = None) -> Iterator[StandbyDemo]:
    """A demo simulator on standby for the life of the block; the caller starts it."""
    standby = StandbyDemo(seed, home)
    try:
        yield standby
    finally:
        standby.stop()
