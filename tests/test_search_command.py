"""`ensemble-tui search` (issue 32 §1): one line per hit (chat id, date, kind, snippet), `--json`
records, ids that `export --chat` takes, a safe query whatever is typed, and an older home
indexed first with its progress on stderr."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.workspace import Workspace
from tests.support import run_command as run_any


def run_command(home: Path, *args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    return run_any(home, *args, timeout=60, process=process)


def a_chat(home: Path, question: str, reply: str) -> str:
    workspace = Workspace.open(home)
    workspace.new_chat()
    workspace.session.history += [ChatMessage(role="user", text=question), ChatMessage(role="assistant", text=reply)]
    workspace.persist()
    chat_id = workspace.session.id
    workspace.close()
    return chat_id


def test_search_prints_one_line_per_hit_and_export_takes_its_ids(home: Path) -> None:
    older = a_chat(home, "What is attention?", r"Attention is $\mathrm{softmax}(QK^T)V$ over the [keys].")
    a_chat(home, "And the decoder?", "It is masked.")
    result = run_command(home, "search", "softmax", process=True)
    assert result.returncode == 0, result.stderr
    (line,) = result.stdout.splitlines()
    chat, date, time, kind, snippet = line.split(maxsplit=4)
    assert (chat, kind) == (older, "reply") and len(date) == 10 and len(time) == 5
    assert "[softmax]" in snippet and "mathrm" not in snippet
    exported = run_command(home, "export", "--chat", chat, "--format", "md")
    assert exported.returncode == 0, exported.stderr


def test_search_json_gives_records_with_the_match(home: Path) -> None:
    chat = a_chat(home, "Why régularisation?", "To avoid overfitting.")
    result = run_command(home, "search", "--json", "--limit", "5", "REGULARISATION")
    assert result.returncode == 0, result.stderr
    (record,) = json.loads(result.stdout)
    assert record["chat"] == chat and record["kind"] == "question" and record["message"] == 0
    start, end = record["matches"][0]
    assert record["snippet"][start:end] == "régularisation"


def test_an_excluded_word_typed_as_its_own_argument_is_a_word_not_an_option(home: Path) -> None:
    """`search softmax -temperature` was refused: argparse read -temperature as an option."""
    kept = a_chat(home, "What does softmax do?", "It normalises the scores.")
    a_chat(home, "And softmax temperature?", "It sharpens or flattens them.")
    home_first = ("--home", str(home))  # before --, after which every word is the query's
    for words in (
        ("softmax", "-temperature"),
        ("-temperature", "softmax"),
        (*home_first, "--", "softmax", "-temperature"),
    ):
        result = run_any(None if "--" in words else home, "search", *words, timeout=60)
        assert result.returncode == 0, result.stderr
        assert [line.split()[0] for line in result.stdout.splitlines()] == [kept]
    refused = run_command(home, "search", "softmax", "--limt", "2")  # a mistyped option is still refused
    assert refused.returncode == 2 and "unrecognized arguments: --limt 2" in refused.stderr


def test_an_excluded_word_beginning_with_h_is_a_word_not_a_help_flag(home: Path) -> None:
    """`search attention -heads` stopped with "argument -h/--help: ignored explicit argument
    'eads'": argparse read the word as -h given "eads"."""
    kept = a_chat(home, "What is attention?", "It weighs the values.")
    a_chat(home, "And attention heads?", "Several run in parallel.")
    result = run_command(home, "search", "attention", "-heads")
    assert result.returncode == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()] == [kept]
    assert run_command(home, "search", "-h").stdout.startswith("usage: ensemble-tui search")  # -h is still help


def test_a_stray_quote_or_operator_finds_nothing_and_says_so(home: Path) -> None:
    a_chat(home, "q", "some words")
    for query in ('"', "NOT", "(", "words -words", "*"):
        result = run_command(home, "search", query)
        assert result.returncode == 0, result.stderr
        assert result.stdout == "" and "Nothing found" in result.stderr
    assert run_command(home, "search", "(").stderr.strip() == "Nothing found for “(”: it has no word to look for."
    only_excluded = run_any(None, "search", "--home", str(home), "--", "-words")  # --home before the query's --
    assert only_excluded.stderr.strip() == (
        "Nothing found for “-words”: it has no word to look for (-excluded words alone find nothing)."
    )
    assert run_command(home, "search", "NOT").stderr.strip() == "Nothing found for “NOT”."  # a word: just not found
    refused = run_command(home, "search", "--limit", "0", "words")
    assert refused.returncode == 2 and refused.stderr.strip() == (
        "ensemble-tui: --limit takes a number of hits, 1 or more (not 0)"
    )


def test_an_older_home_is_indexed_first_with_its_progress(home: Path) -> None:
    chat = a_chat(home, "q", "pooling layers")
    with sqlite3.connect(home / "History.sqlite3") as db:
        for table in ("search_entries", "search_text", "search_meta"):
            db.execute(f"DROP TABLE {table}")
    result = run_command(home, "search", "pooling")
    assert result.returncode == 0, result.stderr
    assert "Indexing the chats for search: 2/2" in result.stderr  # the chat, and the first (empty) one
    assert result.stdout.startswith(chat)
    again = run_command(home, "search", "pooling")
    assert "Indexing" not in again.stderr
