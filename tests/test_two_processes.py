"""Two processes, one home: no completed turn is lost. Several `ensemble-tui ask` runs on one
chat at once each append their turn to the chat as it then stands (a commit waits for the
other's, briefly), and the app takes in a turn that `ask` added to its open chat."""

from __future__ import annotations

from pathlib import Path

from tests import forked
from tests.core.helpers import restored_session
from tests.forked import ForkedCommand
from tests.support import process_environment, run_command


def start_ask(home: Path, question: str) -> ForkedCommand:
    """`ensemble-tui ask --demo` in a process of its own (forked with the SDKs imported: tests/forked.py)."""
    argv = ["ask", "--demo", "--home", str(home), "--mode", "chatgpt", question]
    return forked.start(argv, process_environment(home.parent), home.parent)


def finish(process: ForkedCommand) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


def reply_text(printed: str) -> str:
    """The reply as stored: what `ask` printed, without the Sources list it adds."""
    return printed.split("\n\nSources:")[0].strip()


def pairs(history: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(history[i][1], history[i + 1][1]) for i in range(0, len(history) - 1, 2)]


def test_four_asks_at_once_on_one_chat_keep_every_completed_turn(home: Path, quick_demo: None) -> None:
    # The chat they share, asked in this process (the demo's account file is the processes' own).
    opening = run_command(home, "ask", "--demo", "--mode", "chatgpt", "Q0: the opening question")
    assert opening.returncode == 0, opening.stderr
    questions = [f"Q{n}: asked at the same time" for n in range(1, 5)]
    processes = {question: start_ask(home, question) for question in questions}
    results = {question: finish(process) for question, process in processes.items()}
    completed = {question: reply_text(out) for question, (code, out, _err) in results.items() if code == 0}
    assert completed, [err for _code, _out, err in results.values()]
    for question, (code, _out, err) in results.items():
        assert code == 0 or "another ensemble-tui" in err, (question, err)

    history = [(m.role, m.text) for m in restored_session(home).history]
    assert [role for role, _ in history] == ["user", "assistant"] * (1 + len(completed))
    asked = dict(pairs(history))
    assert set(asked) == {"Q0: the opening question", *completed}
    for question, reply in completed.items():
        assert asked[question] == reply  # each reply right after its own question
    session_id = restored_session(home).id
    transcript = (home / "Chats" / f"{session_id}.md").read_text(encoding="utf-8")
    for question, reply in completed.items():
        assert f"## You\n\n{question}\n\n## Reply\n\n{reply}" in transcript
