"""Hostile model output in a real terminal: no escape sequence reaches tmux, no action runs.

The app runs in tmux against the loopback simulator, whose scripted reply carries a title
change, a clipboard write, a screen clear, an OSC 8 link, live-looking markup and NUL bytes.
tmux is told to accept clipboard writes, so a leaked OSC 52 would show up in its buffers.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ensemble_tui.simulator import Simulator
from ensemble_tui.simulator.script import ScriptedReply
from tests.ui.test_tmux_e2e import TmuxSession

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)")

HOSTILE = (
    "Start [@click=app.quit]Click me[/] [bold]never closed\n\n"
    "Clipboard \x1b]52;c;cHduZWQ=\x07 clear \x1b[2J\x1b[H title \x1b]0;pwned-title\x07 "
    "link \x1b]8;;https://evil.example\x1b\\label\x1b]8;;\x1b\\ nul \x00 bell \x07 c1 \x9b31m END-OF-REPLY"
)


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator() as simulator:
        yield simulator


def test_no_escape_sequence_reaches_the_terminal(sim: Simulator, tmp_path: Path) -> None:
    sim.openai.default = ScriptedReply(HOSTILE)
    env = {key: value for key, value in os.environ.items() if not key.startswith("TMUX")}
    env.update(TERM="xterm-256color", HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "xdg"), **sim.env)
    session = TmuxSession(env)
    marker = tmp_path / "exit-code"
    command = f"{sys.executable} -m ensemble_tui --home {tmp_path / 'home'}; echo $? > {marker}; sleep 30"
    try:
        # new-session starts the server. A `start-server` before it (a server with no session, which
        # exits) was this test's alone, and so were the two runs that found no session and a blank screen.
        session.start(command)
        session.tmux("set-option", "-g", "set-clipboard", "on")
        session.tmux("set-option", "-g", "allow-rename", "on")
        title_before = session.tmux("display-message", "-p", "-t", "app", "#{pane_title}").strip()
        session.wait_started()
        session.keys("-l", "My question stays on screen")
        session.keys("F12")
        # The question stays on screen (no clear-screen happened), the markup is shown literally,
        # and the title sequence's text is inert, its ESC gone; a capture can fall between two
        # parts of a frame, so all four are waited for together.
        texts = ("END-OF-REPLY", "My question stays on screen", "[@click=app.quit]Click me[/]", "]0;pwned-title")
        session.wait_for_all(texts, timeout=60)
        assert session.tmux("display-message", "-p", "-t", "app", "#{pane_title}").strip() == title_before
        assert "pwned" not in session.tmux("display-message", "-p", "-t", "app", "#{window_name}")
        assert session.tmux("list-buffers").strip() == ""  # no clipboard write reached tmux
        session.keys("C-q")
        deadline = time.monotonic() + 15
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marker.read_text().strip() == "0"  # the app was alive and quit normally
    finally:
        session.close()
