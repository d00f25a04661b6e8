"""`ensemble-tui history` and `ensemble-tui export` from a script: the same files as the palette's
exports, math as MathML in HTML, and one line for a chat or run that is not there. One `history`
and one `export` run as processes; the rest run the same entry point in this one."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.records.export import export_session
from ensemble_tui.core.workspace import Workspace
from tests.support import run_command as run_any

REPLY = "Attention is $\\mathrm{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right)V$; it costs $5 and $10 to run."


def run_command(home: Path, *args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """In this process unless `process` (tests.support.run_command)."""
    return run_any(home, *args, timeout=60, process=process)


def a_chat(home: Path, question: str, reply: str) -> str:
    workspace = Workspace.open(home)
    workspace.new_chat()
    workspace.session.history += [ChatMessage(role="user", text=question), ChatMessage(role="assistant", text=reply)]
    workspace.persist()
    workspace.archive.save_turn(
        TurnRecord(session=workspace.session.id, mode="claude", query=question, outcome="final")
    )
    chat_id = workspace.session.id
    workspace.close()
    return chat_id


def test_history_lists_the_chats_and_export_last_writes_html_with_mathml(home: Path) -> None:
    older = a_chat(home, "An older question", "An older answer.")
    newest = a_chat(home, "What is attention?", REPLY)
    listed = run_command(home, "history", process=True)
    assert listed.returncode == 0, listed.stderr
    header, *lines = listed.stdout.splitlines()
    assert header.split() == ["ID", "DATE", "REPLIES", "COST", "FIRST", "QUESTION"]
    assert header.index("REPLIES") + len("REPLIES") == lines[0].index("1 reply") + len("1 reply")  # aligned
    assert lines[0].startswith(newest) and "What is attention?" in lines[0] and "1 reply" in lines[0]
    assert lines[1].startswith(older)

    result = run_command(home, "export", "--last", "--format", "html", process=True)
    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip())
    assert path.parent == home / "Exports" and path.suffix == ".html"
    html = path.read_text(encoding="utf-8")
    assert "<math" in html and "<script" not in html and "costs $5 and $10" in html

    markdown = run_command(home, "export", "--chat", older, "--format", "md", "-o", str(home.parent / "older.md"))
    assert markdown.returncode == 0 and markdown.stdout == ""
    workspace = Workspace.open(home)
    session = workspace.store.archived(older)
    records = [stored.record for stored in workspace.archive.turns(older)]
    assert (home.parent / "older.md").read_text(encoding="utf-8") == export_session(session, records, "md")
    workspace.close()

    run = run_command(home, "export", "--last", "--run", "1", "--format", "json")
    assert run.returncode == 0 and Path(run.stdout.strip()).name.endswith("-run-1.json")


def test_a_chat_or_run_that_is_not_there_is_one_line(home: Path) -> None:
    chat_id = a_chat(home, "q", "a")
    missing = run_command(home, "export", "--chat", "1999-01-01_00-00-00", "--format", "md")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1 and "ensemble-tui history" in missing.stderr
    no_run = run_command(home, "export", "--chat", chat_id, "--run", "5", "--format", "md")
    assert no_run.returncode == 1 and "has 1 run; --run takes 1 to 1." in no_run.stderr


def test_the_current_chat_before_its_first_question_is_not_exported(home: Path) -> None:
    """It wrote a file holding no message."""
    Workspace.open(home).close()  # a first start makes the current chat, empty
    result = run_command(home, "export", "--format", "html")
    assert result.returncode == 1
    assert result.stderr.endswith("has no messages yet: ask a question first.\n")
    assert not (home / "Exports").exists() or not any((home / "Exports").iterdir())


def test_run_on_a_chat_with_no_runs_says_so(home: Path) -> None:
    """Issue 35, polish: it printed "--run takes 1 to 0."."""
    workspace = Workspace.open(home)
    workspace.new_chat()
    workspace.session.history += [ChatMessage(role="user", text="q")]
    workspace.persist()
    chat_id = workspace.session.id
    workspace.close()
    result = run_command(home, "export", "--chat", chat_id, "--run", "99", "--format", "md")
    assert result.returncode == 1 and "1 to 0" not in result.stderr
    assert result.stderr == f"ensemble-tui: chat {chat_id} has no runs yet; export the whole chat without --run.\n"
