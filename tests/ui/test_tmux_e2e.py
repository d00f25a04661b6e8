"""End to end in a real terminal: `ensemble-tui --demo` in tmux, through one full All turn, then
the keys that depend on what a terminal delivers: F8 (a style), Shift+F1 (an added provider,
Ollama enabled from its shipped example) and Ctrl+R (the run report).

The app runs as a user would start it (its own process, a 120x40 terminal, the demo simulator
behind the real SDKs); the test types into it and reads the screen with `tmux capture-pane`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from ensemble_tui.ui.hangup import GRACE_S
from tests.core.helpers import restored_session

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)")

REPO_SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample.pdf"
REPO_ROOT = Path(__file__).resolve().parents[2]
RUN_TAG = "ENSEMBLE_E2E_RUN"  # in the environment of every process a test starts, and theirs


def processes_tagged(tag: str) -> dict[int, str]:
    """The processes whose environment holds RUN_TAG=`tag`, with their command lines. tmux's
    server detaches and the app is reparented to init when it goes, so the test's own process
    tree would not find them: their environment does."""
    needle = f"{RUN_TAG}={tag}".encode()
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


@pytest.fixture(autouse=True)
def nothing_outlives_the_test(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every process the test started (tmux, the shell, the app) has ended by its end: a closed
    terminal gives the app GRACE_S to quit (ui/hangup.py). Any left is killed, and the test fails."""
    tag = uuid.uuid4().hex
    monkeypatch.setenv(RUN_TAG, tag)
    yield
    deadline = time.monotonic() + GRACE_S + 15
    while (left := processes_tagged(tag)) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in left:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    assert not left, f"still running after the test: {left}"


STARTED_S = 90


class TmuxSession:
    def __init__(self, env: dict[str, str]) -> None:
        self.socket = f"ensemble-e2e-{uuid.uuid4().hex[:8]}"
        self.env = env

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """One tmux command on this session's server."""
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], env=self.env, capture_output=True, text=True, timeout=20
        )

    def tmux(self, *args: str) -> str:
        return self.run(*args).stdout

    def start(self, command: str) -> None:
        """A detached session running `command`; tmux's own words if it could not make one (a test
        that then waited on a blank screen said nothing of why)."""
        result = self.run("new-session", "-d", "-s", "app", "-x", "120", "-y", "40", command)
        if result.returncode != 0:
            reason = result.stderr.strip()
            raise AssertionError(f"tmux could not start the session (exit {result.returncode}): {reason}")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "app")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "app", *keys)

    def wait_for(self, text: str, timeout: float) -> str:
        return self.wait_for_any((text,), timeout)

    def wait_started(self) -> str:
        """The app's first screen ("Ready."). Generous: the suite starts its longest tests first,
        and a fresh clone's run begins with a dozen or more processes at once on 2 cores (four workers
        collecting, eight `ask` runs importing the SDKs, crash tests, other apps in tmux); one
        start took over 30 s there and its screen was still blank."""
        return self.wait_for("Ready.", timeout=STARTED_S)

    def wait_for_all(self, texts: tuple[str, ...], timeout: float) -> str:
        """The screen once every one of `texts` is on it at once (a capture can fall between two
        parts of a frame, so one text seen does not mean the frame's others are drawn yet)."""
        return self.wait_until(all, texts, timeout)

    def wait_for_any(self, texts: tuple[str, ...], timeout: float) -> str:
        return self.wait_until(any, texts, timeout)

    def wait_until(self, which: Callable[[Iterable[bool]], bool], texts: tuple[str, ...], timeout: float) -> str:
        """The screen once `which` (all or any) of `texts` are on it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if which(text in screen for text in texts):
                return screen
            time.sleep(0.2)
        running = self.tmux("display-message", "-p", "-t", "app", "#{pane_current_command}").strip()
        raise AssertionError(
            f"{which.__name__} of {texts!r} not seen within {timeout} s"
            f" (the pane runs {running or 'nothing: the session has ended'});"
            f" the screen was:\n{self.screen()}"
        )

    def close(self) -> None:
        self.run("kill-server")


def test_demo_app_runs_one_all_turn_in_tmux(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pdf = tmp_path / "paper.pdf"
    shutil.copyfile(REPO_SAMPLE, pdf)
    # COLUMNS and LINES (pytest-xdist's workers set them) would override the window's size.
    inherited = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    env = {key: value for key, value in inherited.items() if not key.startswith("TMUX")}
    env.update(TERM="xterm-256color", HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "xdg"))
    session = TmuxSession(env)
    configurations = home / "Configurations"
    configurations.mkdir(parents=True)
    ollama = json.loads((REPO_ROOT / "Configurations" / "Ollama.json").read_text())
    (configurations / "Ollama.json").write_text(json.dumps({**ollama, "enabled": True}))
    marker = tmp_path / "exit-code"
    command = f"{sys.executable} -m ensemble_tui --demo --home {home} --pdf {pdf}; echo $? > {marker}; sleep 30"
    try:
        session.start(command)
        session.wait_started()
        session.keys("-l", "What is the main claim?")
        session.keys("Enter")
        # While it runs, the status line says how to cancel and the running action is marked.
        session.wait_for_all(("Esc cancels", "■ All"), timeout=30)
        screen = session.wait_for("Simulated final reply", timeout=60)
        # then "Claims mapped." if the map is late
        screen = session.wait_for_all(("Reply complete (All", "Sources:", "demo-source-1"), timeout=30)
        assert "Traceback" not in screen
        saved = restored_session(home)
        assert [m.role for m in saved.history] == ["user", "assistant"]
        assert saved.resubmissions and saved.last_mode == "all"
        assert set(saved.last_outputs) == {"ChatGPT", "Claude", "Gemini"}  # Ollama does not join All
        session.keys("F8")
        session.wait_for("Style Critique & vote", timeout=30)
        session.keys("-l", "And locally?")
        session.keys("S-F1")
        session.wait_for_all(("Reply complete (Ollama", "Style Critique & vote (multi-model turns only)"), timeout=30)
        session.keys("C-r")
        session.wait_for_all(
            ("Run report · run 2 of 2 · Ollama", "1. All · final · What is the main claim?"), timeout=30
        )
        session.keys("Escape")
        session.wait_for("^r Report", timeout=30)
        session.keys("C-q")
        deadline = time.monotonic() + 15
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert marker.read_text().strip() == "0"
        backup = tmp_path / "backup" / "History.sqlite3"  # a copy of that one file holds every chat
        backup.parent.mkdir()
        shutil.copyfile(home / "History.sqlite3", backup)
        assert restored_session(home, backup).history[-1].text.startswith("**Simulated ollama reply**")
    finally:
        session.close()


def wait_until(condition: Callable[[], bool], timeout: float) -> None:
    """Poll `condition` until it holds (a fixed sleep would wait its whole length every time)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.05)


def _texts(folder: Path) -> list[str]:
    """The text of each JSON file in `folder` (none yet, or one replaced while read: skipped)."""
    texts = []
    for path in folder.glob("*.json"):
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except OSError:
            continue
    return texts


def _demo_env(tmp_path: Path) -> dict[str, str]:
    inherited = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    env = {key: value for key, value in inherited.items() if not key.startswith("TMUX")}
    env.update(TERM="xterm-256color", HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "xdg"))
    return env


def test_a_quit_a_crash_and_a_stray_mode_key_lose_nothing_in_tmux(tmp_path: Path) -> None:
    home = tmp_path / "home"
    app = f"{sys.executable} -m ensemble_tui --demo --home {home}"
    session = TmuxSession(_demo_env(tmp_path))
    try:
        # F5 pressed during an F12 (ChatGPT) run starts nothing: one ChatGPT turn, no All turn.
        session.start(app)
        session.wait_started()
        session.keys("-l", "First, ChatGPT alone")
        session.keys("F12")
        session.keys("F5")
        session.wait_for("Reply complete (ChatGPT", timeout=30)
        saved = restored_session(home)
        assert [m.role for m in saved.history] == ["user", "assistant"] and saved.last_mode == "chatgpt"
        assert set(saved.last_outputs) == {"ChatGPT"}

        # Ctrl+Q during a run asks; Ctrl+Q again quits; the question is back at the next start.
        session.keys("-l", "A question asked as I quit")
        session.keys("F5")
        session.wait_for("· Esc cancels", timeout=30)  # the status line's, not a notice's
        session.keys("C-q")
        session.wait_for("Quit anyway?", timeout=30)
        session.keys("C-q")
        deadline = time.monotonic() + 15
        while "Quit anyway?" in session.screen() and time.monotonic() < deadline:
            time.sleep(0.2)
        wait_until(lambda: "app" not in session.tmux("list-sessions", "-F", "#{session_name}"), 15)  # it has exited
        session.close()
        assert len(restored_session(home).history) == 2  # nothing of the run was kept
        session = TmuxSession(_demo_env(tmp_path))
        session.start(app)
        session.wait_for("A question asked as I quit", timeout=30)  # back in the box, ready to send

        # A draft survives the process being killed.
        session.keys("-l", " and a draft typed after it")
        drafts = home / "Drafts"  # the draft is on disk a moment behind the typing
        wait_until(lambda: any("and a draft typed after it" in text for text in _texts(drafts)), 15)
        session.close()  # the terminal goes away: no clean quit
        session = TmuxSession(_demo_env(tmp_path))
        session.start(app)
        session.wait_for_all(("and a draft typed after it", "A question asked as I quit"), timeout=30)
    finally:
        session.close()


def test_a_burst_of_keys_in_one_write_lands_in_order_in_tmux(tmp_path: Path) -> None:
    """Issue 35 §3: `'Second race test' Enter 'next words'` in one write sent one question,
    "Second race testnext words"; `x BSpace y` lost the y."""
    home = tmp_path / "home"
    session = TmuxSession(_demo_env(tmp_path))
    try:
        session.start(f"{sys.executable} -m ensemble_tui --demo --home {home}")
        session.wait_started()
        session.keys("abc", "x", "BSpace", "y", "C-u")  # one write: Ctrl+U empties the line again
        session.keys("Second race test", "Enter", "next words")  # one write
        session.wait_for("Reply complete", timeout=120)
        history = restored_session(home).history
        assert [m.text for m in history if m.role == "user"] == ["Second race test"]
        session.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "x", "BSpace", "y")  # one write
        wait_until(lambda: "next y" in session.screen(), 10)
    finally:
        session.close()


def test_ctrl_o_and_a_path_in_one_write_choose_that_pdf_in_tmux(tmp_path: Path) -> None:
    """Issue 35 §3: Ctrl+O followed at once by a path left the picker's field empty, or lost
    characters from the middle of the path, and typed the path into the question box."""
    home = tmp_path / "home"
    paper = tmp_path / "papers and notes" / "a-rather-long-name-for-a-paper-2026.pdf"
    paper.parent.mkdir()
    paper.write_bytes(REPO_SAMPLE.read_bytes())
    session = TmuxSession(_demo_env(tmp_path))
    try:
        session.start(f"{sys.executable} -m ensemble_tui --demo --home {home}")
        session.wait_started()
        session.keys("C-o", str(paper), "Enter")  # one write
        session.wait_for("PDF selected", timeout=30)
        wait_until(lambda: restored_session(home).pdf_path == str(paper), 10)
        assert "Ask about the paper" in session.screen()  # the box's placeholder: nothing was typed there
    finally:
        session.close()
