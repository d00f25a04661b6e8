"""The session survives a restart however it changed (turns, redos, cancels, resynthesis), a
file from an older version still opens, and an archive that is gone or broken costs a warning
and a new chat, never the old chat's transcript."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.chat.session import ChatMessage, Resubmission, SessionData
from ensemble_tui.core.store.archive import SCHEMA, RunArchive
from ensemble_tui.core.turn.events import ReplyCommitted, TurnNotSaved
from ensemble_tui.core.workspace import Workspace
from tests.core.helpers import of_type, run_turn
from tests.support import Hang


def _restarted(home: Path) -> Workspace:
    workspace = Workspace.open(home)
    workspace.archive.close()  # the next restart in the same test opens it afresh
    return workspace


async def test_a_restart_restores_the_chat_after_turns_redos_and_cancels(workspace, scripted, make_engine, home):
    engine = make_engine()
    scripted["ChatGPT"].scripts["proposer"] = ["first answer", "second answer", "second answer, redone", Hang()]
    await run_turn(engine, Mode.CHATGPT, "first question")
    await run_turn(engine, Mode.CHATGPT, "second question")
    await run_turn(engine, Mode.CHATGPT, "")  # redo: the last reply is replaced
    cancelled = asyncio.ensure_future(run_turn(engine, Mode.CHATGPT, "cancelled question"))
    await asyncio.sleep(0.05)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled

    restored = _restarted(home)
    assert [m.text for m in restored.session.history] == [
        "first question",
        "first answer",
        "second question",
        "second answer, redone",
    ]
    assert restored.session == workspace.session
    assert restored.warnings == []


async def test_resubmissions_and_costs_come_back_too(workspace, home):
    workspace.session.resubmissions.append(Resubmission(iteration=1, text="try again, with sources"))
    workspace.session.history.append(ChatMessage(role="user", text="q"))
    workspace.session.cost_usd = 0.25
    workspace.persist()
    workspace.session.resubmissions.append(Resubmission(iteration=2, text="and shorter"))
    workspace.persist()
    restored = _restarted(home).session
    assert [r.text for r in restored.resubmissions] == ["try again, with sources", "and shorter"]
    assert restored.cost_usd == 0.25


def test_session_json_stays_small_as_the_chat_grows(workspace, home):
    for number in range(200):
        workspace.session.history.append(ChatMessage(role="user", text=f"question {number} " + "x" * 500))
        workspace.persist()
    saved = workspace.paths.session_file.read_text(encoding="utf-8")
    assert len(saved) < 2_000
    assert json.loads(saved) == {"id": workspace.session.id}  # it names the chat; the archive holds it
    assert "question 199" in (home / "Chats" / f"{workspace.session.id}.md").read_text(encoding="utf-8")
    assert len(_restarted(home).session.history) == 200


def test_a_session_file_from_an_older_version_opens_and_moves_its_history_to_the_archive(home):
    old = SessionData(history=[ChatMessage(role="user", text="old q"), ChatMessage(role="assistant", text="old a")])
    home.mkdir(parents=True)
    (home / "Session.json").write_text(old.model_dump_json(indent=2), encoding="utf-8")

    workspace = Workspace.open(home)
    assert workspace.warnings == []
    assert [m.text for m in workspace.session.history] == ["old q", "old a"]
    workspace.session.history.append(ChatMessage(role="user", text="new q"))
    workspace.persist()
    workspace.archive.close()

    assert "old q" not in (home / "Session.json").read_text(encoding="utf-8")
    assert [m.text for m in _restarted(home).session.history] == ["old q", "old a", "new q"]


def test_a_deleted_archive_means_a_new_chat_and_the_old_transcript_stays(workspace, home):
    workspace.session.history += [ChatMessage(role="user", text="kept q"), ChatMessage(role="assistant", text="kept a")]
    workspace.persist()
    old_id = workspace.session.id
    transcript = home / "Chats" / f"{old_id}.md"
    before = transcript.read_text(encoding="utf-8")
    workspace.archive.close()
    for leftover in home.glob("History.sqlite3*"):
        leftover.unlink()

    restarted = Workspace.open(home)
    assert restarted.session.id != old_id and restarted.session.history == []
    assert restarted.warnings == [
        f"History.sqlite3 no longer holds chat {old_id}; its transcript is Chats/{old_id}.md. Started a new chat."
    ]
    restarted.session.history.append(ChatMessage(role="user", text="fresh start"))
    restarted.persist()
    assert transcript.read_text(encoding="utf-8") == before


def test_a_broken_archive_is_kept_aside_and_a_new_chat_starts(workspace, home):
    workspace.session.history.append(ChatMessage(role="user", text="before the damage"))
    workspace.persist()
    old_transcript = home / "Chats" / f"{workspace.session.id}.md"
    workspace.archive.close()
    for leftover in home.glob("History.sqlite3-*"):
        leftover.unlink()
    (home / "History.sqlite3").write_bytes(b"this is not a database" * 100)

    restarted = Workspace.open(home)
    (warning,) = restarted.warnings
    assert warning.startswith("History.sqlite3 could not be read (file is not a database); kept as ")
    assert restarted.session.history == []
    assert "before the damage" in old_transcript.read_text(encoding="utf-8")
    assert len(list(home.glob("History.sqlite3.broken-*"))) == 1
    restarted.session.history.append(ChatMessage(role="user", text="after the damage"))
    restarted.persist()  # a fresh archive takes the new chat
    assert [m.text for m in _restarted(home).session.history] == ["after the damage"]


async def test_an_archive_that_refuses_a_save_says_the_turn_was_not_saved_but_shows_the_reply(
    workspace, scripted, make_engine, monkeypatch: pytest.MonkeyPatch
):
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(RunArchive, "save_session", refuse)
    scripted["ChatGPT"].scripts["proposer"] = ["the answer"]
    events = await run_turn(make_engine(), Mode.CHATGPT, "a question")
    assert [e.text for e in of_type(events, ReplyCommitted)] == ["the answer"]
    notices = [e.message for e in of_type(events, TurnNotSaved)]
    assert notices and all(
        n.startswith(f"This turn was not saved: cannot write {workspace.paths.archive}") for n in notices
    )
    assert [m.text for m in workspace.session.history] == ["a question", "the answer"]
    monkeypatch.undo()
    workspace.persist()  # the archive is back: the next save stores the whole turn
    assert [m.text for m in _restarted(workspace.paths.root).session.history] == ["a question", "the answer"]


def test_a_chat_archived_by_an_older_version_reopens_with_its_messages(workspace, home):
    old = SessionData(id="2026-01-01_10-00-00", history=[ChatMessage(role="user", text="archived q")])
    old.history.append(ChatMessage(role="assistant", text="archived a"))
    with sqlite3.connect(workspace.paths.archive) as db:  # a row as older versions wrote it: the whole session
        db.executescript(SCHEMA)
        db.execute(
            "INSERT INTO sessions (id, first_question, turns, cost_usd, data) VALUES (?, ?, ?, ?, ?)",
            (old.id, "archived q", 1, 0.0, old.model_dump_json()),
        )
    reopened = workspace.reopen(old.id)
    assert [m.text for m in reopened.history] == ["archived q", "archived a"]
    reopened.history.append(ChatMessage(role="user", text="asked again"))
    workspace.persist()
    assert [m.text for m in _restarted(home).session.history] == ["archived q", "archived a", "asked again"]


async def test_a_turn_renders_only_its_own_messages_into_the_transcript(
    workspace, scripted, make_engine, home, monkeypatch
):
    """A turn's commit renders its own messages' blocks and a redo its new reply, never the whole
    chat again (in a chat of 1,000 turns that was 0.4 s a reply, bench row 9.d); the file on disk
    is still the whole transcript, as rendering the chat from nothing gives it."""
    from ensemble_tui.core.chat.session import render_transcript
    from ensemble_tui.core.store import transcript

    rendered: list[str] = []
    block = transcript.transcript_block
    monkeypatch.setattr(transcript, "transcript_block", lambda message: rendered.append(message.text) or block(message))
    engine = make_engine()
    scripted["ChatGPT"].scripts["proposer"] = ["first answer", "second answer", "third answer", "third, redone"]
    path = home / "Chats" / f"{workspace.session.id}.md"
    for question in ("first question", "second question", "third question"):
        await run_turn(engine, Mode.CHATGPT, question)
        assert path.read_text(encoding="utf-8") == render_transcript(workspace.session)
    assert rendered[-2:] == ["third question", "third answer"]
    assert rendered.count("first answer") == 1 and rendered.count("second answer") == 1

    rendered.clear()
    await run_turn(engine, Mode.CHATGPT, "")  # redo: only the new reply is rendered
    assert rendered == ["third, redone"]
    assert workspace.session.replaced is not None and workspace.session.replaced.text == "third answer"
    text = path.read_text(encoding="utf-8")
    assert text == render_transcript(workspace.session)
    assert "third, redone" in text and "third answer" not in text
