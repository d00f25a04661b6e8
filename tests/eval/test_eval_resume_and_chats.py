"""A killed eval resumes without asking again what it had; its calls never enter a chat; the
questions from history carry their chat's PDF and the chat before them."""

from __future__ import annotations

import hashlib
import signal
import sqlite3
import time
from pathlib import Path

from ensemble_tui.core.chat.session import ChatMessage, SessionData
from ensemble_tui.eval.questions import from_sessions
from ensemble_tui.simulator.eval_demo import LATENCY_VARIABLE
from tests import forked
from tests.eval.helpers import questions_file, run_eval, stored
from tests.support import process_environment, run_command


def answer_rows(home: Path) -> dict[tuple[str, str], tuple[str, str]]:
    db = sqlite3.connect(home / "History.sqlite3")
    try:
        return {
            (q, arm): (data, at)
            for q, arm, data, at in db.execute("SELECT question, arm, data, created_at FROM eval_answers")
        }
    finally:
        db.close()


def test_a_killed_eval_resumes_and_asks_nothing_it_had(tmp_path: Path) -> None:
    home = tmp_path / "h"
    questions = questions_file(tmp_path, 6)
    argv = ["eval", "--demo", "--questions", str(questions), "--arms", "chatgpt,claude", "--yes", "--home", str(home)]
    env = process_environment(tmp_path, {LATENCY_VARIABLE: "0.4"})
    process = forked.start(argv, env, tmp_path)  # a process of its own, to kill (tests/forked.py)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.returncode is None:
            if (home / "History.sqlite3").exists() and len(_safe_rows(home)) >= 2:
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
    finally:
        process.communicate(timeout=30)
    before = _safe_rows(home)
    assert 2 <= len(before) < 12, "the eval was killed mid-run"
    rerun = run_eval(home, "--questions", str(questions), "--arms", "chatgpt,claude", "--yes")
    assert rerun.returncode == 0, rerun.stderr
    after = answer_rows(home)
    assert len(after) == 12
    for key, row in before.items():  # what the killed run had is kept as it was: not asked again
        assert after[key] == row


def _safe_rows(home: Path) -> dict[tuple[str, str], tuple[str, str]]:
    try:
        return answer_rows(home)
    except sqlite3.Error:
        return {}


def tree(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def chats(home: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(home / "History.sqlite3")
    try:
        rows = db.execute("SELECT * FROM sessions ORDER BY id").fetchall()
        rows += db.execute("SELECT * FROM session_items ORDER BY session, list, position").fetchall()
        return rows + db.execute("SELECT id, session FROM turns ORDER BY id").fetchall()
    finally:
        db.close()


def test_the_eval_of_the_chats_leaves_the_chats_as_they_were(tmp_path: Path) -> None:
    home = tmp_path / "h"
    for question in ("What is the main result?", "And its weakest assumption?"):
        assert run_command(home, "ask", "--demo", question).returncode == 0
    chats_before, files_before = chats(home), tree(home / "Chats")
    session_before = (home / "Session.json").read_bytes()
    result = run_eval(home, "--from-history", "2", "--arms", "chatgpt,all,council", "--yes")
    assert result.returncode == 0, result.stderr
    answers, _ = stored(home)
    assert len(answers) == 6 and all(a.failed is None for a in answers.values())
    assert chats(home) == chats_before
    assert tree(home / "Chats") == files_before
    assert (home / "Session.json").read_bytes() == session_before


def test_questions_from_history_carry_their_pdf_and_the_chat_before_them(tmp_path: Path) -> None:
    def message(role: str, text: str) -> ChatMessage:
        return ChatMessage(role=role, text=text)  # type: ignore[arg-type]

    older = SessionData(pdf_path="/papers/a.pdf", history=[message("user", "A1?"), message("assistant", "a1")])
    newer = SessionData(
        pdf_path="/papers/b.pdf",
        history=[
            message("user", "B1?"),
            message("assistant", "b1"),
            message("user", "B2?"),
            message("assistant", "b2"),
            message("user", "unanswered?"),  # its turn failed: no question for the eval
        ],
    )
    questions = from_sessions([newer, older], 3)  # newest chat first, as the archive lists them
    assert [q.text for q in questions] == ["A1?", "B1?", "B2?"]
    assert [q.pdf for q in questions] == ["/papers/a.pdf", "/papers/b.pdf", "/papers/b.pdf"]
    assert questions[2].history == (message("user", "B1?"), message("assistant", "b1"))
    assert questions[0].history == () and questions[1].history == ()
    again = from_sessions([newer, older], 3)
    assert [q.id for q in again] == [q.id for q in questions]  # stable: a rerun finds its answers
    assert len({q.id for q in questions}) == 3
    assert [q.text for q in from_sessions([newer, older], 1)] == ["B2?"]
