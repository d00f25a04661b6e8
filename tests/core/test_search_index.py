"""Search across every chat (issue 32 §1): a saved turn is findable at once, by words, phrases,
prefixes and exclusions, with accents, case and LaTeX out of the way; a deleted chat is gone, a
renamed one found by its name; an older home is indexed once, with its progress told."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.chat.runlog import Artifact, TurnRecord
from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.store.search_index import MATCH_END, MATCH_START
from ensemble_tui.core.store.search_text import parse_query
from ensemble_tui.core.workspace import Workspace
from tests.core.helpers import run_turn


def _chat(workspace: Workspace, *pairs: tuple[str, str]) -> str:
    """A new chat holding these (question, reply) pairs, saved one turn at a time."""
    session = workspace.session = workspace.store.new_session(workspace.session)
    for question, reply in pairs:
        session.history.append(ChatMessage(role="user", text=question))
        session.history.append(ChatMessage(role="assistant", text=reply))
        workspace.persist()
    return session.id


def _found(archive: RunArchive, query: str) -> list[tuple[str, str, int]]:
    return [(hit.session, hit.kind, hit.position) for hit in archive.search(query)]


async def test_a_saved_turn_is_found_by_its_question_and_its_reply(workspace, scripted, make_engine):
    scripted["ChatGPT"].scripts["proposer"] = ["Attention weighs every token against the others."]
    await run_turn(make_engine(), Mode.CHATGPT, "What does the encoder do?")
    chat = workspace.session.id
    assert _found(workspace.archive, "encoder") == [(chat, "question", 0)]
    assert _found(workspace.archive, "weighs") == [(chat, "reply", 1)]
    hit = workspace.archive.search("weighs")[0]
    assert f"{MATCH_START}weighs{MATCH_END}" in hit.snippet
    assert hit.chat_name == "What does the encoder do?"


async def test_a_redone_reply_is_found_in_place_of_the_one_it_replaced(workspace, scripted, make_engine):
    scripted["ChatGPT"].scripts["proposer"] = ["the first draft", "the better version"]
    engine = make_engine()
    await run_turn(engine, Mode.CHATGPT, "a question")
    await run_turn(engine, Mode.CHATGPT, "")  # redo
    assert _found(workspace.archive, "draft") == []
    assert _found(workspace.archive, "better") == [(workspace.session.id, "reply", 1)]


def test_accents_and_case_are_ignored(workspace):
    chat = _chat(workspace, ("Quelle régularisation ?", "La Régularisation L2 évite le surapprentissage."))
    assert sorted(_found(workspace.archive, "REGULARISATION")) == [(chat, "question", 0), (chat, "reply", 1)]
    assert _found(workspace.archive, "evite") == [(chat, "reply", 1)]
    assert _found(workspace.archive, "Surapprentissage") == [(chat, "reply", 1)]


def test_latex_is_found_by_the_words_a_reader_types(workspace):
    chat = _chat(
        workspace,
        ("How are scores normalised?", r"They take $\mathrm{softmax}(QK^\top/\sqrt{d_k})$ and $\alpha_{ij}$."),
    )
    assert _found(workspace.archive, "softmax") == [(chat, "reply", 1)]
    assert _found(workspace.archive, "alpha") == [(chat, "reply", 1)]
    assert _found(workspace.archive, "mathrm") == []  # layout, not words
    assert _found(workspace.archive, r"\mathrm{softmax}") == [(chat, "reply", 1)]
    (hit,) = workspace.archive.search("softmax")
    snippet = hit.to_json()["snippet"]  # the LaTeX's punctuation dropped without leaving gaps: it reads as written
    assert snippet == "They take softmax(QK top/d k) and alpha ij.", snippet
    assert _found(workspace.archive, '"d_k"') == [(chat, "reply", 1)]  # a subscript's letters stay words


def test_phrases_prefixes_and_exclusions(workspace):
    one = _chat(workspace, ("q1", "The transformer uses multi-head attention."))
    two = _chat(workspace, ("q2", "Attention heads in a recurrent network."))
    three = _chat(workspace, ("q3", "Transformations of the input."))
    assert {s for s, _, _ in _found(workspace.archive, '"multi-head attention"')} == {one}
    assert {s for s, _, _ in _found(workspace.archive, '"attention heads"')} == {two}
    assert {s for s, _, _ in _found(workspace.archive, "transform*")} == {one, three}
    assert {s for s, _, _ in _found(workspace.archive, "attention -recurrent")} == {one}
    assert {s for s, _, _ in _found(workspace.archive, 'attention -"multi head"')} == {two}
    assert _found(workspace.archive, "-attention") == []  # nothing to look for


@pytest.mark.parametrize(
    "query", ['"', 'attention "heads', "AND", "NOT attention", "(", "*", "-", "NEAR(a b)", "a OR", "^x", "col:x", "'"]
)
def test_a_stray_quote_or_operator_never_raises(workspace, query):
    _chat(workspace, ("q", "attention heads AND more"))
    workspace.archive.search(query)  # no sqlite3.OperationalError


def test_operators_typed_are_words():
    assert parse_query("cats OR dogs").fts == '"cats" AND "OR" AND "dogs"'
    assert parse_query('a -"b c" d*').fts == '("a" AND "d" *) NOT ("b c")'


def test_the_best_match_comes_first_and_the_newest_among_equals(workspace):
    old = _chat(workspace, ("q", "dropout once"))
    new = _chat(workspace, ("q", "dropout once"))
    strong = _chat(workspace, ("q", "dropout dropout dropout, said dropout"))
    assert [s for s, _, _ in _found(workspace.archive, "dropout")] == [strong, new, old]


def test_a_deleted_chat_leaves_the_index_and_a_renamed_one_is_found_by_its_name(workspace):
    gone = _chat(workspace, ("q", "batch normalisation"))
    kept = _chat(workspace, ("q", "batch size"))
    workspace.session = workspace.store.new_session(workspace.session)
    workspace.store.delete(gone)
    assert {s for s, _, _ in _found(workspace.archive, "batch")} == {kept}
    assert workspace.archive.rename_session(kept, "Tuning notes")
    assert _found(workspace.archive, "tuning") == [(kept, "name", -1)]
    assert workspace.archive.search("batch")[0].chat_name == "Tuning notes"
    workspace.archive.rename_session(kept, "Other")
    assert _found(workspace.archive, "tuning") == []


def test_proposals_and_claims_are_indexed_and_marked(workspace):
    chat = _chat(workspace, ("q", "the final reply"))
    record = TurnRecord(session=chat, mode="all", query="q")
    record.artifacts = [
        Artifact("answer", "ChatGPT", "a proposal about gradients"),
        Artifact("claims", "Claude", "", data={"map": {"claims": [{"text": "Gradients vanish", "kind": "unique"}]}}),
    ]
    turn = workspace.archive.save_turn(record)
    assert sorted(_found(workspace.archive, "gradients")) == [(chat, "claim", 0), (chat, "proposal", 0)]
    # The claim map drawn after the reply replaces the turn's claims.
    record.artifacts.append(
        Artifact("claims", "Claude", "", data={"map": {"claims": [{"text": "Gradients explode", "kind": "unique"}]}})
    )
    workspace.archive.amend_turn(turn, record)
    assert _found(workspace.archive, "explode") == [(chat, "claim", 0)]
    assert _found(workspace.archive, "vanish") == []


def _older_home(home: Path, workspace: Workspace) -> None:
    """Make the home one an older version made: no search index."""
    workspace.archive.close()
    with sqlite3.connect(home / "History.sqlite3") as db:
        for table in ("search_entries", "search_text", "search_meta"):
            db.execute(f"DROP TABLE {table}")


def test_an_existing_home_is_indexed_once_on_first_open_with_its_progress(workspace, home):
    first = _chat(workspace, ("first question", "about convolutions"), ("second", "pooling layers"))
    second = _chat(workspace, ("another", "convolutions again"))
    record = TurnRecord(session=second, mode="all", query="another")
    record.artifacts = [Artifact("answer", "Gemini", "a proposal on strides")]
    workspace.archive.save_turn(record)
    workspace.archive.rename_session(first, "Vision")
    _older_home(home, workspace)

    archive = RunArchive(home / "History.sqlite3")
    assert not archive.search_index_ready()
    assert archive.search("pooling") == []  # nothing yet, and no half index
    told: list[tuple[int, int]] = []
    assert archive.build_search_index(lambda done, total: told.append((done, total))) >= 2
    assert told[-1][0] == told[-1][1] and len(told) == told[-1][1]
    assert _found(archive, "pooling") == [(first, "reply", 3)]
    assert {s for s, _, _ in _found(archive, "convolutions")} == {first, second}
    assert _found(archive, "strides") == [(second, "proposal", 0)]
    assert _found(archive, "vision") == [(first, "name", -1)]
    assert archive.build_search_index() == 0  # once
    assert archive.search_index_ready()
    archive.close()


def test_a_new_home_needs_no_indexing(home):
    workspace = Workspace.open(home)
    assert workspace.archive.search_index_ready()


def test_a_word_in_very_many_entries_ranks_the_newest_of_them(workspace, monkeypatch):
    from ensemble_tui.core.store import search_index

    oldest = _chat(workspace, ("q", "tensor tensor tensor tensor"))  # the best match, but the oldest
    newer = [_chat(workspace, ("q", f"one tensor among words {n}")) for n in range(3)]
    assert _found(workspace.archive, "tensor")[0][0] == oldest
    monkeypatch.setattr(search_index, "RANKED", 3)
    assert {s for s, _, _ in _found(workspace.archive, "tensor")} == set(newer)
