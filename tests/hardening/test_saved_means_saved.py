"""Saved means saved (issue 24 §3): a turn that cannot be stored says so and its reply is
recovered, the transcript never loses a turn, a read-only home is one line, chats started at
once never share an id. Processes run this worktree's code (PYTHONPATH set explicitly)."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import ReplyCommitted, TurnNotSaved
from ensemble_tui.core.workspace import Workspace
from tests.core.helpers import of_type, run_turn
from tests.support import ScriptedProvider, no_sleep, run_command

REPO = Path(__file__).resolve().parents[2]


def ensemble(
    home: Path,
    *args: str,
    timeout: float = 120,
    process: bool = True,
    forked: bool = False,
    read_only: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`ensemble-tui ARGS --home HOME` as a script runs it, on this worktree's code; in this
    process with `process=False` (tests.support.run_command), for a run that only prepares a home;
    in a process forked with the SDKs imported with `forked=True` (tests/forked.py), for a run
    whose own standard streams matter but not its interpreter's start-up or exit; `read_only=True`:
    forked, the home read-only for that process alone."""
    folders = {"XDG_STATE_HOME": str(home.parent / "state"), "XDG_CACHE_HOME": str(home.parent / "cache")}
    forked = forked or read_only
    return run_command(
        home,
        *args,
        env=folders,
        timeout=timeout,
        process=process and not forked,
        forked=forked,
        read_only=home if read_only else None,
    )


def transcript_questions(home: Path) -> set[str]:
    found: set[str] = set()
    for path in (home / "Chats").glob("*.md"):
        parts = path.read_text(encoding="utf-8").split("## You\n\n")[1:]
        found.update(part.split("\n", 1)[0] for part in parts)
    return found


def engine_for(home: Path) -> tuple[Workspace, Engine]:
    workspace = Workspace.open(home)
    workspace.attach_providers({"ChatGPT": ScriptedProvider("ChatGPT", default="Answer.")}, {})  # type: ignore[dict-item]
    return workspace, Engine(workspace, sleep=no_sleep)


@contextmanager
def commit_fails(archive: RunArchive) -> Iterator[None]:
    """The turn's commit fails (a full disk, an I/O error) once the calls are answered: every write
    that stores the chat raises. The budget ledger's own writes still work, since a call whose
    reservation cannot be recorded is never sent (issue 34 §3), and a reply must exist to be lost."""
    original = archive.save_session

    def failing(*args: object, **kwargs: object) -> int:
        raise sqlite3.OperationalError("disk I/O error")

    archive.save_session = failing  # type: ignore[method-assign]
    try:
        yield
    finally:
        archive.save_session = original  # type: ignore[method-assign]


async def test_a_turn_whose_commit_fails_says_so_and_its_reply_is_recovered(home: Path) -> None:
    workspace, engine = engine_for(home)
    with commit_fails(workspace.archive):
        events = await run_turn(engine, Mode.CHATGPT, "Q-lost")
    [unsaved] = of_type(events, TurnNotSaved)
    assert "not saved" in unsaved.message and "\n" not in unsaved.message
    recovered = Path(unsaved.message.split("the reply is in ", 1)[1].split(" - ", 1)[0])
    assert recovered.parent == home / "Recovered"
    assert "Q-lost" in recovered.read_text() and "Answer." in recovered.read_text()
    assert stat.S_IMODE(recovered.stat().st_mode) == 0o600
    assert of_type(events, ReplyCommitted)  # the reply is shown all the same
    workspace.close()


async def test_the_transcript_never_loses_a_turn_after_a_failed_commit(home: Path) -> None:
    """A commit that fails after the transcript was written left a turn the database lacked in
    the transcript; the next process's turn rewrote it from the database and the turn vanished."""
    seen: list[set[str]] = []
    workspace, engine = engine_for(home)
    await run_turn(engine, Mode.CHATGPT, "Q1")
    seen.append(transcript_questions(home))
    with commit_fails(workspace.archive):
        await run_turn(engine, Mode.CHATGPT, "Q2")
    seen.append(transcript_questions(home))
    workspace.close()
    workspace, engine = engine_for(home)  # the next `ask`
    await run_turn(engine, Mode.CHATGPT, "Q3")
    seen.append(transcript_questions(home))
    workspace.close()
    for before, after in zip(seen, seen[1:], strict=False):
        assert before <= after, f"the transcript lost {before - after}"
    assert {"Q1", "Q3"} <= seen[-1]


def _new_chat_and_ask(home: str, question: str, start: object) -> None:
    async def work() -> None:
        workspace, engine = engine_for(Path(home))
        start.wait()  # type: ignore[attr-defined]
        workspace.new_chat()
        await run_turn(engine, Mode.CHATGPT, question)
        workspace.close()

    asyncio.run(work())


def test_six_new_chats_at_once_make_six_chats_each_with_its_own_question(home: Path) -> None:
    Workspace.open(home).close()
    context = multiprocessing.get_context("fork")
    start = context.Barrier(6)
    children = [context.Process(target=_new_chat_and_ask, args=(str(home), f"Q{n}", start)) for n in range(6)]
    for child in children:
        child.start()
    for child in children:
        child.join(60)
        assert child.exitcode == 0
    archive = RunArchive(home / "History.sqlite3")
    chats = [chat for chat in archive.sessions() if chat.first_question]
    questions = {}
    for chat in chats:
        stored = archive.load_session(chat.id)
        assert stored is not None
        questions[chat.id] = [item for item in stored.items["history"] if '"role":"user"' in item]
    archive.close()
    assert len(chats) == 6
    assert all(len(asked) == 1 for asked in questions.values()), questions


def test_history_as_a_folder_makes_ask_exit_1_with_one_line(home: Path, quick_demo: None) -> None:
    assert ensemble(home, "ask", "--demo", "--mode", "chatgpt", "first", process=False).returncode == 0
    for name in ("History.sqlite3", "History.sqlite3-wal", "History.sqlite3-shm"):
        (home / name).unlink(missing_ok=True)
    (home / "History.sqlite3").mkdir()
    run = ensemble(home, "ask", "--demo", "--mode", "chatgpt", "second", process=False)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    # The budget ledger lives in the history too: with nowhere to record the call's reservation,
    # no paid call is sent (issue 34 §3), and the line says what to do.
    assert run.stdout == ""
    [line] = [line for line in run.stderr.splitlines() if "Budget stop" in line]
    assert "cannot be written" in line and "no paid call is sent" in line


def _read_only_mounts() -> bool:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _read_only_mounts(), reason="needs root and mount namespaces for a read-only bind mount")
def test_a_read_only_home_is_one_line_for_every_command_and_history_still_reads(home: Path, quick_demo: None) -> None:
    assert ensemble(home, "ask", "--demo", "--mode", "chatgpt", "first", process=False).returncode == 0
    # Each a process of its own in which the home is bound read-only (forked with the SDKs imported).
    asked = ensemble(home, "ask", "--demo", "--mode", "chatgpt", "--new", "second", read_only=True)
    assert asked.returncode == 1 and asked.stdout == ""  # no reservation can be recorded: nothing is sent
    files = ensemble(home, "files", "--demo", read_only=True)
    history = ensemble(home, "history", read_only=True)
    for run in (asked, files, history):
        assert "Traceback" not in run.stderr, run.stderr
    for run in (asked, files):
        assert sum("read-only" in line for line in run.stderr.splitlines()) == 1, run.stderr
    assert history.returncode == 0 and "first" in history.stdout


def test_history_in_a_home_that_does_not_exist_creates_nothing(tmp_path: Path) -> None:
    home = tmp_path / "none"
    run = ensemble(home, "history", process=False)
    # it says the folder is not there (a mistyped --home is not a home without chats: tests/test_missing_home.py)
    assert run.returncode == 2 and f"there is no home folder at {home}" in run.stderr
    assert not home.exists()
