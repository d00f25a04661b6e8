"""Issue 31 in a real terminal: at 80x24, a 40-line All reply whose claim map could not be read.
The late "Claim map left out" line must not scroll the chat to the reply's end: the reply's first
line stays on screen. The app runs in its own process under tmux (tests/ui/long_reply_app.py
scripts the turn), and the test reads the screen with `tmux capture-pane`.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.ui.long_reply_app import FIRST_LINE, QUESTION
from tests.ui.test_tmux_e2e import REPO_ROOT, TmuxSession, nothing_outlives_the_test  # noqa: F401 (a fixture)

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)"),
    pytest.mark.usefixtures("nothing_outlives_the_test"),  # the app ends with its terminal
]


@pytest.mark.parametrize("readable", [False, True], ids=["unreadable-map", "read-map"])
def test_a_late_map_keeps_a_long_replys_start_on_screen_in_tmux(tmp_path: Path, readable: bool) -> None:
    inherited = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    env = {key: value for key, value in inherited.items() if not key.startswith("TMUX")}
    env.update(TERM="xterm-256color", HOME=str(tmp_path), PYTHONPATH=str(REPO_ROOT))
    session = TmuxSession(env)
    home = tmp_path / "home"
    which = "read" if readable else "unreadable"
    try:
        session.tmux(
            "new-session", "-d", "-s", "app", "-x", "80", "-y", "24",
            f"cd {REPO_ROOT} && {sys.executable} -m tests.ui.long_reply_app {home} {which}; sleep 30",
        )  # fmt: skip
        session.wait_for("Enter sends", timeout=30)  # the question box is up (its hint fits the width)
        session.keys("-l", QUESTION)
        session.keys("F5")
        session.wait_for("Drawing the claim map", timeout=30)  # the reply is shown; its map is out
        ending = "Claims mapped." if readable else "Claim map left out"
        screen = session.wait_for(ending, timeout=30)
        time.sleep(0.5)  # any scroll the late line would cause
        screen = session.screen()
        assert FIRST_LINE in screen, screen
        assert "Traceback" not in screen
    finally:
        session.close()
