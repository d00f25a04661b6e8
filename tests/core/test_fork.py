"""Branches (core/store/fork.py): a new chat from the first turns of another, which stays as it was."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest

from ensemble_tui.core.chat.session import ChatMessage, SessionData
from ensemble_tui.core.records.export import export_session
from ensemble_tui.core.store.archive import RunArchive, SessionRow
from ensemble_tui.core.store.fork import ForkError, ForkPoint, fork_chat, fork_stored, history_through
from ensemble_tui.core.store.upload_registry import StoredUpload, UploadRegistry, utc_now
from ensemble_tui.core.workspace import Workspace
from tests.core.helpers import restored_session


def chat(*pairs: tuple[str, str | None]) -> list[ChatMessage]:
    messages = []
    for question, reply in pairs:
        messages.append(ChatMessage(role="user", text=question))
        if reply is not None:
            messages.append(ChatMessage(role="assistant", text=reply))
    return messages


def three_turns(workspace: Workspace) -> SessionData:
    workspace.session.history = chat(("Q1", "A1"), ("Q2", "A2"), ("Q3", "A3"))
    workspace.session.cost_usd = 0.42
    workspace.session.pdf_path = "/papers/p.pdf"
    workspace.persist()
    return workspace.session


def test_the_history_kept_is_the_first_questions_with_their_replies() -> None:
    history = chat(("Q1", "A1"), ("Q2", None), ("Q3", "A3"))
    assert [m.text for m in history_through(history, 0)] == []
    assert [m.text for m in history_through(history, 1)] == ["Q1", "A1"]
    assert [m.text for m in history_through(history, 2)] == ["Q1", "A1", "Q2"]
    assert [m.text for m in history_through(history, 3)] == ["Q1", "A1", "Q2", "Q3", "A3"]
    with pytest.raises(ForkError, match="from 0 to 3"):
        history_through(history, 4)


@pytest.mark.parametrize("text", ["abc", "abc:", ":2", "abc:x", "abc:-1"])
def test_a_fork_point_that_is_not_chat_and_number_is_one_line(text: str) -> None:
    with pytest.raises(ForkError, match="CHAT_ID:N"):
        ForkPoint.parse(text)


def test_a_fork_point_reads_a_chat_id_as_history_lists_it() -> None:
    assert ForkPoint.parse("2026-05-01_09-00-00:2") == ForkPoint("2026-05-01_09-00-00", 2)


def test_a_branch_is_a_new_chat_and_the_parent_is_untouched(workspace: Workspace, home: Path) -> None:
    parent = three_turns(workspace)
    before = workspace.archive.load_session(parent.id)

    branch = fork_chat(workspace.store, parent, 2)

    assert branch.id != parent.id
    assert [m.text for m in branch.history] == ["Q1", "A1", "Q2", "A2"]
    assert (branch.parent_id, branch.fork_turn, branch.cost_usd) == (parent.id, 2, 0.0)
    assert branch.pdf_path == "/papers/p.pdf"
    assert workspace.archive.load_session(parent.id) == before  # not a byte of the parent changed
    restored = restored_session(home)  # the branch is the chat the next start opens
    assert (restored.id, restored.parent_id, restored.fork_turn) == (branch.id, parent.id, 2)
    assert [m.text for m in restored.history] == ["Q1", "A1", "Q2", "A2"]


def test_the_history_lists_a_branch_with_its_parent_and_fork_point(workspace: Workspace) -> None:
    parent = three_turns(workspace)
    branch = fork_chat(workspace.store, parent, 1)
    listed = {summary.id: summary for summary in workspace.archive.sessions()}
    assert (listed[branch.id].parent, listed[branch.id].fork_turn) == (parent.id, 1)
    assert (listed[parent.id].parent, listed[parent.id].fork_turn) == (None, None)
    assert listed[branch.id].cost_usd == 0.0 and listed[parent.id].cost_usd == 0.42


def test_ensemble_tui_history_lists_a_branch_under_its_parent_with_its_fork_point(workspace: Workspace) -> None:
    """As the app's history does (a branch was listed by date alone, like any other chat, and a
    chat renamed in the app by its first question)."""
    from ensemble_tui.commands.history import run_history

    parent = three_turns(workspace)
    branch = fork_chat(workspace.store, parent, 1)
    workspace.new_chat()
    workspace.session.history = chat(("Newest", "A"))
    workspace.persist()
    workspace.archive.rename_session(parent.id, "Named in the app")  # listed by its name, as the app lists it
    out = io.StringIO()
    assert run_history(workspace, out=out, err=io.StringIO()) == 0
    rows = [line.split(maxsplit=6) for line in out.getvalue().splitlines()[1:]]
    assert [(row[0], row[6]) for row in rows] == [
        (workspace.session.id, "Newest"),
        (parent.id, "Named in the app"),
        (branch.id, "↳ branched after question 1 · Q1"),
    ]


def test_listing_the_chats_parses_the_json_of_the_branches_alone(workspace: Workspace) -> None:
    """The history's list of every chat (Ctrl+G) must not parse every chat's JSON (~4.5 KB each
    in a real home) to find the few that are branches: it counts the parses SQLite makes."""
    archive = workspace.archive
    with archive.writing() as db:
        for number in range(6):
            archive.save_session(
                SessionRow(f"2025-01-0{number + 1}_00-00-00", f"Q{number}", 1, 0.0, json.dumps({"id": str(number)})),
                {},
                db=db,
            )
    parent = three_turns(workspace)
    branch = fork_chat(workspace.store, parent, 1)
    parses: list[str] = []

    def json_extract(document: str, path: str) -> object:
        parses.append(path)
        return json.loads(document).get(path.removeprefix("$."))

    with archive.transaction() as db:  # SQLite's own json_extract, counted
        db.create_function("json_extract", 2, json_extract, deterministic=True)
    listed = {summary.id: (summary.parent, summary.fork_turn) for summary in archive.sessions()}

    assert len(listed) == 8
    assert listed[branch.id] == (parent.id, 1) and listed[parent.id] == (None, None)
    assert len(parses) <= 2  # the branch's two fields at most, not two for each of the 8 chats


def test_a_home_made_before_branches_gets_the_columns_and_keeps_its_chats(tmp_path: Path) -> None:
    path = tmp_path / "History.sqlite3"
    with sqlite3.connect(path) as db:  # the sessions table as the last version made it
        db.execute(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, first_question TEXT NOT NULL DEFAULT '', "
            "turns INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0, "
            "updated_at TEXT NOT NULL DEFAULT (datetime('now')), data TEXT NOT NULL, "
            "revision INTEGER NOT NULL DEFAULT 0, title TEXT NOT NULL DEFAULT '')"
        )
        db.execute(
            "INSERT INTO sessions (id, first_question, turns, data) VALUES ('old', 'Q?', 1, '{\"id\": \"old\"}')"
        )
        db.execute(
            "INSERT INTO sessions (id, first_question, turns, data) VALUES "
            '(\'b\', \'Q?\', 1, \'{"id": "b", "parent_id": "old", "fork_turn": 1}\')'
        )
    db.close()
    archive = RunArchive(path)
    listed = {summary.id: (summary.parent, summary.fork_turn) for summary in archive.sessions()}
    archive.close()
    assert listed == {"old": (None, None), "b": ("old", 1)}
    reopened = RunArchive(path)  # opening it again adds nothing twice
    assert len(reopened.sessions()) == 2
    reopened.close()


def test_the_branch_uses_its_parents_uploads(workspace: Workspace) -> None:
    parent = three_turns(workspace)
    registry = UploadRegistry(workspace.archive)
    upload = StoredUpload("Claude", "file_1", "file_1", "abc", 10, "p.pdf", utc_now())
    registry.add(upload, parent.id)
    registry.add(StoredUpload("Claude", "file_2", "file_2", "def", 10, "q.pdf", utc_now()), "someone-else")

    branch = fork_chat(workspace.store, parent, 3)

    users = {stored.file_id: {use.session for use in stored.uses} for stored in registry.all()}
    assert users == {"file_1": {parent.id, branch.id}, "file_2": {"someone-else"}}


def test_forking_a_chat_not_in_the_history_says_so(workspace: Workspace) -> None:
    with pytest.raises(ForkError, match="no chat nope"):
        fork_stored(workspace.store, ForkPoint("nope", 1))


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_exports_of_a_branch_name_the_parent(workspace: Workspace, fmt: str) -> None:
    parent = three_turns(workspace)
    branch = fork_chat(workspace.store, parent, 2)
    text = export_session(branch, [], fmt)  # type: ignore[arg-type]
    assert "Branch of chat" in text and parent.id in text and "branched after question 2" in text
    assert "Branch of chat" not in export_session(parent, [], fmt)  # type: ignore[arg-type]


def test_the_json_export_of_a_branch_names_the_parent(workspace: Workspace) -> None:
    parent = three_turns(workspace)
    branch = fork_chat(workspace.store, parent, 2)
    data = json.loads(export_session(branch, [], "json"))
    assert data["branch_of"] == {"chat": parent.id, "after_question": 2}
    assert "branch_of" not in json.loads(export_session(parent, [], "json"))
