"""The message cursor and branches in the app (issue 32 §2): Up from an empty box puts a cursor on
the messages; on a question, e edits and resends it on a branch, f forks the chat there, c
copies it; Esc leaves. The history lists a branch under its parent with its fork point."""

from __future__ import annotations

import pytest

from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.store.fork import branch_of
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier
from tests.ui.conftest import wait_until
from tests.ui.test_snapshots import SIZES, steady_cursor


def three_turns() -> list[ChatMessage]:
    messages = []
    for number in (1, 2, 3):
        messages.append(ChatMessage(role="user", text=f"Question {number}: what does Lemma {number} assume?"))
        messages.append(ChatMessage(role="assistant", text=f"Reply {number}: Lemma {number} assumes a bounded loss."))
    return messages


@pytest.fixture
def chat_app(workspace, scripted):
    workspace.session.id = "2026-01-02_09-30-00"
    workspace.session.history = three_turns()
    workspace.session.cost_usd = 0.05
    workspace.persist()
    return EnsembleApp(workspace, notifier=RecordingNotifier(), folder_opener=lambda _path: False)


async def on_question(pilot, number: int) -> None:
    """Up from the empty box, then up to question `number` (of three)."""
    await pilot.pause()
    await pilot.press("up")
    for _ in range(2 * (3 - number) + 1):
        await pilot.press("up")
    await pilot.pause()


async def test_up_from_an_empty_box_puts_the_cursor_on_the_last_message_and_esc_leaves(chat_app) -> None:
    async with chat_app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        log = chat_app.main.chat.log_view
        await pilot.press("up")
        assert log.cursor == 5 and log.has_focus
        await pilot.press("up", "up")
        assert log.cursor == 3 and log.entries[3].has_class("-cursor")
        await pilot.press("escape")
        assert log.cursor is None and chat_app.main.chat.input.has_focus
        assert not any(entry.has_class("-cursor") for entry in log.entries)


async def test_up_in_a_box_with_text_moves_in_the_text(chat_app) -> None:
    async with chat_app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("a", "ctrl+j", "b", "up")
        assert chat_app.main.chat.log_view.cursor is None and chat_app.main.chat.input.cursor_location == (0, 1)


async def test_the_dedicated_key_puts_the_cursor_too(chat_app) -> None:
    async with chat_app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("x", "alt+up")
        assert chat_app.main.chat.log_view.cursor == 5


async def test_fork_here_makes_a_branch_with_the_turns_up_to_this_one(chat_app) -> None:
    workspace = chat_app.workspace
    parent = workspace.session.id
    async with chat_app.run_test(size=(100, 30)) as pilot:
        await on_question(pilot, 2)
        await pilot.press("f")
        await pilot.pause()
        branch = workspace.session
        assert branch.id != parent and (branch.parent_id, branch.fork_turn) == (parent, 2)
        assert [m.text for m in chat_app.main.chat.log_view.items] == [m.text for m in three_turns()[:4]]
        assert branch.cost_usd == 0.0 and chat_app.main.chat.input.has_focus
    assert len(workspace.store.archived(parent).history) == 6


async def test_edit_and_resend_branches_only_when_sent(chat_app, scripted) -> None:
    workspace = chat_app.workspace
    parent = workspace.session.id
    scripted["ChatGPT"].default = "Reply 2b."
    async with chat_app.run_test(size=(100, 30)) as pilot:
        await on_question(pilot, 2)
        await pilot.press("e")
        await pilot.pause()
        assert chat_app.main.chat.input.text == "Question 2: what does Lemma 2 assume?"
        assert workspace.session.id == parent  # nothing made yet
        await pilot.press("space", "o", "k", "?", "f12")
        await wait_until(pilot, lambda: len(workspace.session.history) == 4 and not chat_app.main.turns.running)
        branch = workspace.session
        assert (branch.parent_id, branch.fork_turn) == (parent, 1)
        assert [m.text for m in branch.history] == [
            "Question 1: what does Lemma 1 assume?",
            "Reply 1: Lemma 1 assumes a bounded loss.",
            "Question 2: what does Lemma 2 assume? ok?",
            "Reply 2b.",
        ]
    assert [m.text for m in workspace.store.archived(parent).history] == [m.text for m in three_turns()]


async def test_copy_takes_the_messages_text(chat_app) -> None:
    copied: list[str] = []
    chat_app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with chat_app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("up", "c")
        assert copied == ["Reply 3: Lemma 3 assumes a bounded loss."]
        await pilot.press("up", "c")
        assert copied[-1] == "Question 3: what does Lemma 3 assume?"


async def test_on_a_reply_edit_says_so_and_fork_branches_after_its_turn(chat_app) -> None:
    """Fork on a reply said "act on a question" and did nothing; a reply ends its turn, so the
    branch holds the turns up to it, as Fork on its question makes."""
    workspace = chat_app.workspace
    parent = workspace.session.id
    async with chat_app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("up", "up", "up", "e")  # the cursor on Reply 2
        await pilot.pause()
        assert workspace.session.id == parent and chat_app.main.chat.input.text == ""
        assert chat_app.main.chat.status.text == "Edit acts on a question: move the cursor up to it."
        await pilot.press("f")
        await pilot.pause()
        branch = workspace.session
        assert branch.id != parent and (branch.parent_id, branch.fork_turn) == (parent, 2)
        assert [m.text for m in chat_app.main.chat.log_view.items] == [m.text for m in three_turns()[:4]]


# ----- snapshots ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_message_cursor_layout(snap_compare, chat_app, size):
    async def cursor_on_question_2(pilot) -> None:
        await on_question(pilot, 2)
        await pilot.pause()

    assert snap_compare(chat_app, terminal_size=size, run_before=cursor_on_question_2)


@pytest.mark.parametrize("size", SIZES)
def test_history_with_a_branch_layout(snap_compare, chat_app, size):
    workspace = chat_app.workspace
    parent = workspace.session
    branch = branch_of(parent, 2, "2026-01-03_10-00-00")  # fork_chat's branch, at a fixed date
    workspace.store.save(branch)
    workspace.session = branch  # open now, listed under its parent

    async def open_history(pilot) -> None:
        await pilot.pause()
        await pilot.press("ctrl+g")
        await pilot.pause()
        await pilot.pause()
        await steady_cursor(pilot)

    assert snap_compare(chat_app, terminal_size=size, run_before=open_history)


def test_the_help_and_the_palette_name_the_cursor_key() -> None:
    from ensemble_tui.ui.bindings import ACTION_BY_ID, keyed_actions, shown_key

    assert shown_key("chat.cursor", {}) == "Alt+Up"
    assert ACTION_BY_ID["chat.cursor"] in list(keyed_actions())  # the help screen lists every keyed action
    assert ACTION_BY_ID["chat.cursor"].palette is not None


def test_the_history_puts_each_branch_under_its_parent() -> None:
    from ensemble_tui.core.store.archive import SessionSummary
    from ensemble_tui.core.store.fork import under_parents

    def chat(chat_id: str, parent: str | None = None, after: int | None = None) -> SessionSummary:
        return SessionSummary(chat_id, "Q", 1, 0.0, parent=parent, fork_turn=after)

    newest_first = [chat("e", "gone", 1), chat("d", "a", 2), chat("c", "b", 1), chat("b", "a", 1), chat("a")]
    assert [(s.id, depth) for s, depth in under_parents(newest_first)] == [
        ("e", 0),  # its parent is not listed: it keeps its place
        ("a", 0),
        ("d", 1),
        ("b", 1),
        ("c", 2),
    ]
