"""SIGKILL at random moments while the app writes settings, sessions, transcripts and the
archive: afterwards every file parses and holds every turn that had completed."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
import signal
from multiprocessing.connection import Connection
from pathlib import Path

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.chat.session import SessionData
from ensemble_tui.core.settings import Settings
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import ReplyCommitted
from ensemble_tui.core.workspace import Workspace
from tests.support import ScriptedProvider
from tests.support import no_sleep as no_wait

KILLS = 100  # each kill costs a forked writer ~0.2 s of CPU and a check of the files
# Each writer is killed after 0 to 2 turns it reported complete, then a random moment into the next
# one: so kills land both after completed turns and in the middle of one, however long a turn takes
# on a busy machine (a first turn in a fresh process takes 0.10-0.19 s alone, several times that
# beside the rest of the suite).
TURNS_BEFORE_KILL = (0, 1, 2)
KILL_WITHIN_S = (0.0, 0.12)
TURN_TIMEOUT_S = 30.0
CHECK_ALL_EVERY = 10  # kills between checks of every chat's files (each kill checks the current chat's)
REPLY = "A reply long enough to make every save take a moment.\n\n" + "| a | b |\n|---|---|\n| 1 | 2 |\n" * 400


async def _work(home: Path, conn: Connection, seed: int) -> None:
    rng = random.Random(seed)
    workspace = Workspace.open(home)
    workspace.attach_providers({"ChatGPT": ScriptedProvider("ChatGPT", default=REPLY)}, {})  # type: ignore[dict-item]

    engine = Engine(workspace, sleep=no_wait)
    number = rng.randrange(1_000_000)
    while True:
        workspace.update_settings(temperature=round(rng.uniform(0, 2), 2))
        if rng.random() < 0.15:
            workspace.new_chat()
        question = f"Q{number}"
        async for event in engine.run(Mode.CHATGPT, question):
            if isinstance(event, ReplyCommitted):
                # The engine has saved everything before it reports the reply.
                conn.send((workspace.session.id, question))
        number += 1


def _child(home: str, conn: Connection, seed: int) -> None:
    asyncio.run(_work(Path(home), conn, seed))


def _check_files(home: Path, completed: dict[str, set[str]], *, every_session: bool = True) -> None:
    """Every file parses, and every completed turn is in its chat's transcript and archive rows.
    With `every_session=False`, the turns are checked for the current chat only: the one the
    writer was saving (the other chats' files are checked every CHECK_ALL_EVERY kills and at the
    end; a file a kill broke stays broken, so that check still finds it)."""
    Settings.model_validate(json.loads((home / "Configurations" / "Settings.json").read_text()))
    if not (home / "Session.json").exists():  # killed before the first save of all
        assert not completed, "Session.json is gone although turns had completed"
        return
    saved = SessionData.model_validate(json.loads((home / "Session.json").read_text()))
    workspace = Workspace.open(home)  # a restart
    assert workspace.warnings == [], workspace.warnings
    current = workspace.session
    assert current.id == saved.id
    for session_id, questions in completed.items():
        if not every_session and session_id != current.id:
            continue
        transcript = (home / "Chats" / f"{session_id}.md").read_text(encoding="utf-8")
        archived = workspace.store.archived(session_id)
        assert archived is not None
        archived_questions = {m.text for m in archived.history if m.role == "user"}
        for question in questions:
            assert f"## You\n\n{question}\n\n## Reply" in transcript
            assert question in archived_questions
        if session_id == current.id:
            answered = [
                m.text for i, m in enumerate(current.history[:-1]) if current.history[i + 1].role == "assistant"
            ]
            assert questions <= set(answered)


def test_random_kills_never_lose_a_completed_turn(tmp_path: Path) -> None:
    home = tmp_path / "home"
    # Each call killed in flight stays reserved at its worst case (a provider bills it), so 200
    # kills would spend any real cap: this test is about the files, not the budget.
    Workspace.open(home).update_settings(budget_usd=1_000_000.0)
    context = multiprocessing.get_context("fork")
    rng = random.Random(2026)
    completed: dict[str, set[str]] = {}
    kills_mid_turn = 0
    for round_number in range(KILLS):
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(str(home), sender, round_number), daemon=True)
        process.start()
        sender.close()
        got = 0
        for _ in range(rng.choice(TURNS_BEFORE_KILL)):  # let it complete this many turns first
            assert receiver.poll(TURN_TIMEOUT_S), "the writer completed no turn in time"
            session_id, question = receiver.recv()
            completed.setdefault(session_id, set()).add(question)
            got += 1
        process.join(timeout=rng.uniform(*KILL_WITHIN_S))
        assert process.is_alive(), f"the writer died by itself (exit code {process.exitcode})"
        os.kill(process.pid, signal.SIGKILL)
        process.join()
        while receiver.poll():
            try:
                session_id, question = receiver.recv()
            except EOFError:
                break
            completed.setdefault(session_id, set()).add(question)
            got += 1
        kills_mid_turn += got == 0
        receiver.close()
        _check_files(home, completed, every_session=round_number % CHECK_ALL_EVERY == 0)
    _check_files(home, completed)
    assert sum(len(q) for q in completed.values()) > KILLS / 2, "the writer rarely finished a turn"
    assert kills_mid_turn > 0, "no kill landed in the middle of a turn"
    Workspace.open(home, stale_after_s=0)
    assert [p.name for p in home.rglob("*.tmp")] == [], "a restart clears what killed writes left"
