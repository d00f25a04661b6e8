"""Issue 35 #1: the run report marks the run whose reply a redo replaced, derived from the chat."""

from __future__ import annotations

from ensemble_tui.core.chat.runlog import Artifact, TurnRecord
from ensemble_tui.core.chat.session import ChatMessage, SessionData, brought_back
from ensemble_tui.core.records.report import replaced_runs, report_markdown, turn_report


def run(reply: str | None, outcome: str = "final") -> TurnRecord:
    artifacts = [Artifact("final", "", reply)] if reply is not None else []
    return TurnRecord(session="s", mode="chatgpt", query="Q", outcome=outcome, artifacts=artifacts)


def chat(*replies: str) -> list[ChatMessage]:
    return [
        m for text in replies for m in (ChatMessage(role="user", text="Q"), ChatMessage(role="assistant", text=text))
    ]


def test_the_run_a_redo_replaced_is_marked_and_a_failed_redo_is_not() -> None:
    records = [run("old"), run("new"), run(None, outcome="failed")]
    assert replaced_runs(records, chat("new")) == {0}
    assert "replaced by a redo" not in report_markdown(records[0])  # exports: unmarked unless told
    sections = turn_report(records[0], replaced=True)
    assert "final, replaced by a redo" in sections[0].markdown
    assert sections[-1].title == "Final reply (replaced by a redo)"


def test_a_redo_that_wrote_the_same_words_still_marks_the_older_run() -> None:
    assert replaced_runs([run("same"), run("same")], chat("same")) == {0}


def test_a_reply_brought_back_is_no_longer_marked_and_the_redos_is() -> None:
    session = SessionData(history=chat("new"), replaced=ChatMessage(role="assistant", text="old"))
    back = brought_back(session)
    assert back is not None and [m.text for m in back.history] == ["Q", "old"]
    assert replaced_runs([run("old"), run("new")], back.history) == {1}
    assert brought_back(SessionData(history=chat("new"))) is None  # no redo: nothing to bring back


def test_a_reply_missing_without_a_redo_of_its_question_is_not_called_replaced() -> None:
    other = TurnRecord(
        session="s", mode="all", query="Another", outcome="final", artifacts=[Artifact("final", "", "x")]
    )
    assert replaced_runs([other], chat("new")) == frozenset()
