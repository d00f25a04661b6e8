"""`ensemble-tui ask` end to end: the command line's entry point, the real SDKs, the loopback
simulator; the first test runs it as a process of its own (forked with the SDKs imported:
tests/forked.py), the others in this one."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.simulator import Simulator
from ensemble_tui.simulator.script import Fault, ScriptedReply
from tests.core.helpers import restored_session
from tests.support import run_command

AGGREGATOR = "editor of a small panel"  # from the shipped aggregator system prompt
SYNTHESIS = "Your own proposal was Proposed Reply"


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator() as simulator:
        yield simulator


def ask(
    sim: Simulator, home: Path, *args: str, drop: tuple[str, ...] = (), forked: bool = False
) -> subprocess.CompletedProcess[str]:
    """`ensemble-tui ask ARGS` against the simulator, `drop` left out of its environment; in this
    process unless `forked` (tests.support.run_command)."""
    env = {name: value for name, value in sim.env.items() if name not in drop}
    return run_command(home, "ask", *args, env=env, forked=forked)


def history(home: Path) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in restored_session(home).history]


def test_single_model_reply_on_stdout_status_on_stderr(sim: Simulator, home: Path, sample_pdf: Path) -> None:
    sim.anthropic.push(ScriptedReply("Claude's answer.", citations=("https://example.org/paper",)))
    result = ask(sim, home, "--mode", "claude", "--pdf", str(sample_pdf), "What is Lemma 2?", forked=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Claude's answer.\n\nSources:\n- https://example.org/paper\n"
    assert "Waiting for Claude" in result.stderr
    assert len(sim.anthropic.uploads) == 1 and len(sim.anthropic.calls) == 1
    assert sim.openai.calls == [] and sim.gemini.calls == []
    assert history(home) == [("user", "What is Lemma 2?"), ("assistant", "Claude's answer.")]


def test_the_paper_goes_only_to_the_models_the_turn_calls(sim: Simulator, home: Path, sample_pdf: Path) -> None:
    # Claude answers after a while: time enough for any other upload started with the turn to land.
    sim.anthropic.push(ScriptedReply("Claude's answer.", latency_s=1.0))
    result = ask(sim, home, "--mode", "claude", "--pdf", str(sample_pdf), "What is Lemma 2?")
    assert result.returncode == 0, result.stderr
    assert len(sim.anthropic.uploads) == 1
    assert sim.openai.uploads == [] and sim.gemini.uploads == []


def test_all_with_a_resynthesis_round(sim: Simulator, home: Path) -> None:
    sim.openai.push(
        ScriptedReply("REQUEST SYNTHESIS FROM PROPOSERS\nAgree on the constant.", match=AGGREGATOR),
        ScriptedReply("FINAL REPLY:\nThe constant is 2.", match=AGGREGATOR),
    )
    for script in (sim.openai, sim.anthropic, sim.gemini):
        script.push(ScriptedReply(f"first {script.name}", unless=AGGREGATOR))
        script.push(ScriptedReply(f"revised {script.name}", match=SYNTHESIS))
    result = ask(sim, home, "What is the constant?")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "The constant is 2."
    assert "Aggregating replies, iteration 2…" in result.stderr
    assert "another round" in result.stderr
    # the claim map's calls (ChatGPT maps, as the aggregator) ask for structured output
    openai = [call for call in sim.openai.calls if "json_schema" not in json.dumps(call.body)]
    assert len(openai) == 4 and len(sim.anthropic.calls) == 2 and len(sim.gemini.calls) == 2
    resubmissions = restored_session(home).resubmissions
    assert len(resubmissions) == 1 and "Agree on the constant." in resubmissions[0].text


def test_the_fifth_pass_is_forced_final(sim: Simulator, home: Path) -> None:
    sim.openai.default = ScriptedReply("a proposal")
    sim.anthropic.default = ScriptedReply("a proposal")
    sim.gemini.default = ScriptedReply("a proposal")
    sim.openai.push(*[ScriptedReply("REQUEST SYNTHESIS FROM PROPOSERS\nMore.", match=AGGREGATOR)] * 4)
    sim.openai.push(ScriptedReply("FINAL REPLY:\nForced at last.", match="another round is not possible"))
    result = ask(sim, home, "Hard one")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Forced at last."
    assert "Aggregating replies, iteration 5…" in result.stderr
    aggregations = [r for r in sim.openai.calls if AGGREGATOR in r.text]
    assert len(aggregations) == 5


def test_empty_question_redoes_the_last_reply(sim: Simulator, home: Path) -> None:
    sim.openai.push(ScriptedReply("First try."))
    assert ask(sim, home, "--mode", "chatgpt", "Explain Table 1").returncode == 0
    sim.gemini.push(ScriptedReply("Second try."))
    result = ask(sim, home, "--mode", "gemini", "")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Second try."
    assert history(home) == [("user", "Explain Table 1"), ("assistant", "Second try.")]
    transcript = next((home / "Chats").glob("*.md")).read_text()
    assert "First try." not in transcript and "Second try." in transcript


def test_missing_key_names_the_variable_and_the_question_never_enters_a_chat(sim: Simulator, home: Path) -> None:
    """As the app refuses a mode that cannot run before its question enters the chat, so does
    `ask`: no chat holds a question that was never asked, and `--new` makes no empty chat."""
    result = ask(sim, home, "--mode", "claude", "Hello?", drop=("ANTHROPIC_API_KEY",))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "ensemble-tui: Claude is unavailable: set ANTHROPIC_API_KEY in the environment or in ~/home/.env"
    )
    assert result.stdout == ""
    assert history(home) == []
    assert ask(sim, home, "--mode", "chatgpt", "Explain Table 1").returncode == 0
    chats = run_command(home, "history").stdout
    result = ask(sim, home, "--new", "--mode", "claude", "Hello again?", drop=("ANTHROPIC_API_KEY",))
    assert result.returncode == 1
    assert run_command(home, "history").stdout == chats  # no new chat
    assert [text for _role, text in history(home)][0] == "Explain Table 1"
    assert len(history(home)) == 2


def test_vanished_pdf_is_one_clear_line(sim: Simulator, home: Path, sample_pdf: Path) -> None:
    sim.openai.push(ScriptedReply("ok"))
    assert ask(sim, home, "--mode", "chatgpt", "--pdf", str(sample_pdf), "first").returncode == 0
    sample_pdf.unlink()
    result = ask(sim, home, "--mode", "chatgpt", "second")
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert "paper.pdf no longer exists" in last and "Traceback" not in result.stderr
    assert last.endswith("choose it again (in Attachments, or with --pdf)")  # it named only the app's pane


def test_a_pdf_that_never_existed_is_said_to_not_exist(sim: Simulator, home: Path, tmp_path: Path) -> None:
    """Issue 35 §11: it said "no longer exists - select it again in Attachments"."""
    missing = tmp_path / "nonexistent.pdf"
    result = ask(sim, home, "--mode", "chatgpt", "--pdf", str(missing), "hi")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"ensemble-tui: the PDF {missing} does not exist - check the path given to --pdf"
    )
    assert "Attachments" not in result.stderr and history(home) == []


def test_a_failing_provider_gives_a_short_error_and_keeps_the_input(sim: Simulator, home: Path) -> None:
    sim.gemini.push(Fault("bad_key"))
    result = ask(sim, home, "--mode", "gemini", "Will this work?")
    assert result.returncode == 1
    assert "GEMINI_API_KEY" in result.stderr and "Traceback" not in result.stderr
    assert history(home) == [("user", "Will this work?")]
    assert len(sim.gemini.calls) == 1  # a bad key is not retried


@pytest.mark.parametrize("style", ["council", "vote", "debate"])
def test_each_style_runs_end_to_end(sim: Simulator, home: Path, style: str) -> None:
    for script in (sim.openai, sim.anthropic, sim.gemini):
        script.push(ScriptedReply(f"Answer from {script.name}.", unless="Answer A"))
        script.default = ScriptedReply(
            {
                "council": "Both fine.\n\nFINAL RANKING:\n1. A\n2. B",
                "vote": json.dumps(
                    {
                        "critiques": [
                            {
                                "label": label,
                                "critique": "ok",
                                "correctness": 8,
                                "completeness": 7,
                                "clarity": 7,
                                "helpfulness": 7,
                                "safety": 10,
                                "overall": score,
                            }
                            for label, score in (("A", 8), ("B", 6))
                        ],
                        "ranking": ["A", "B"],
                        "confidence": 0.6,
                    }
                ),
                "debate": "# ANSWER\nRevised answer.\n\n# RATIONALE\nbecause\n\n# DISCUSSION\n",
            }[style]
        )
    sim.openai.push(ScriptedReply("The chairman's reply.", match="You are the chair"))
    result = ask(sim, home, "--style", style, "Which claim holds?")
    assert result.returncode == 0, result.stderr
    assert "tally:" in result.stderr
    if style != "council":  # points and first places, as the run report gives them
        assert re.search(r"tally: 1\. \S+ [\d.]+ pts \(\d+ first\)", result.stderr), result.stderr
    # The reply on stdout is the reply alone; who wrote it goes to stderr, and beside it in the chat.
    provenance = restored_session(home).history[-1].provenance
    assert provenance is not None and f"reply by: {provenance.line}" in result.stderr
    if style == "council":
        assert result.stdout.strip() == "The chairman's reply."
        assert provenance.line.startswith("All · Council · chairman ")
    elif style == "vote":
        assert result.stdout.startswith("Answer from") and "Borda" not in result.stdout
        assert provenance.line.startswith("All · Critique & vote · winner ") and provenance.tally
    else:
        assert result.stdout.strip() == "Revised answer." and "Debate over" not in result.stdout
        assert provenance.line.startswith("All · Debate · ") and " won the debate (" in provenance.line
        assert provenance.tally


def test_ask_prints_the_reply_unchanged_and_one_line_per_checked_quote(
    sim: Simulator, home: Path, sample_pdf: Path
) -> None:
    from tests.ui.test_quote_marks import REPLY

    sim.anthropic.push(ScriptedReply(REPLY))
    result = ask(sim, home, "--mode", "claude", "--pdf", str(sample_pdf), "What does it report?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == REPLY + "\n"
    lines = [line for line in result.stderr.splitlines() if line.startswith("quote ")]
    assert lines == [
        'quote ✓ p. 1: "aggregation with one resynthesis round answered 87 correctly…"',
        'quote ✓ p. 2: "Letting models read each other\'s work improves answers…"',
        'quote ✗ not in the paper: "ensembles of language models always outperform every single…"',
        'quote ✗ not in the paper: "aggregation with one resynthesis round answered 78 correctly…"',
    ]


def test_the_vote_line_gives_points_and_first_places_as_the_run_report_does() -> None:
    from ensemble_tui.commands.ask_turn import describe
    from ensemble_tui.core.chat.modes import Style
    from ensemble_tui.core.chat.provenance import VoteRow
    from ensemble_tui.core.turn.events import VoteCounted

    rows = (VoteRow("Gemini", 1, 9.0, 1), VoteRow("ChatGPT", 2, 4.5, 0))
    assert describe(VoteCounted(Style.VOTE, rows)) == "tally: 1. Gemini 9 pts (1 first), 2. ChatGPT 4.5 pts (0 first)"
    council = (VoteRow("Claude", 1, 0.0, 0, average_position=1.5, ballots=2),)
    assert describe(VoteCounted(Style.COUNCIL, council)) == "tally: 1. Claude avg position 1.50 (2 ballots)"


# ----- ask --fork: a question on a branch of a past chat ------------------------------------------


def test_fork_asks_on_a_branch_and_leaves_the_chat_as_it_was(sim: Simulator, home: Path, sample_pdf: Path) -> None:
    from tests.providers.provider_support import FILE_PART, received

    for number in (1, 2, 3):
        sim.anthropic.push(ScriptedReply(f"A{number}"))
        first = number == 1
        pdf = ("--pdf", str(sample_pdf)) if first else ()
        assert ask(sim, home, "--mode", "claude", *pdf, f"Q{number}").returncode == 0
    parent = restored_session(home)
    sim.anthropic.push(ScriptedReply("A2, another way"))

    result = ask(sim, home, "--mode", "claude", "--fork", f"{parent.id}:1", "Q2 another way")

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "A2, another way"
    branch = restored_session(home)
    assert f"new chat {branch.id}: a branch of {parent.id}, branched after question 1" in result.stderr
    assert (branch.parent_id, branch.fork_turn, branch.pdf_path) == (parent.id, 1, parent.pdf_path)
    assert history(home) == [
        ("user", "Q1"),
        ("assistant", "A1"),
        ("user", "Q2 another way"),
        ("assistant", "A2, another way"),
    ]
    sent = [text for _, text in received(sim.anthropic.calls[-1])]
    assert sent[1:] == [f"{FILE_PART}\nQ1", "A1", "Q2 another way"]  # nothing after the fork point
    assert len(sim.anthropic.uploads) == 1  # the parent's upload serves the branch
    listed = run_command(home, "history").stdout
    assert parent.id in listed and branch.id in listed
    reopened = [(m.role, m.text) for m in restored_session(home).history]
    assert reopened == history(home)
    from ensemble_tui.core.store.archive import RunArchive
    from ensemble_tui.core.store.home import HomePaths

    archive = RunArchive(HomePaths(home).archive)
    stored = [ChatMessage.model_validate_json(text).text for text in archive.load_session(parent.id).items["history"]]
    archive.close()
    assert stored == ["Q1", "A1", "Q2", "A2", "Q3", "A3"]


@pytest.mark.parametrize(
    ("fork", "question", "line"),
    [
        ("nochat", "Q", "--fork takes CHAT_ID:N"),
        ("{chat}:4", "Q", "the chat has 1 question: give a fork point from 0 to 1"),
        ("missing:1", "Q", "there is no chat missing in the history"),
        ("{chat}:1", "", "--fork asks a new question on the branch: give the QUESTION"),
    ],
)
def test_a_fork_that_cannot_be_made_is_one_line_and_asks_nothing(
    sim: Simulator, home: Path, fork: str, question: str, line: str
) -> None:
    sim.anthropic.push(ScriptedReply("A1"))
    assert ask(sim, home, "--mode", "claude", "Q1").returncode == 0
    parent = restored_session(home).id
    calls = len(sim.anthropic.calls)

    result = ask(sim, home, "--mode", "claude", "--fork", fork.format(chat=parent), question)

    assert result.returncode == 2
    assert line in result.stderr.strip().splitlines()[-1]
    assert len(sim.anthropic.calls) == calls and restored_session(home).id == parent


def test_a_style_given_to_a_single_model_says_it_has_no_effect(sim: Simulator, home: Path) -> None:
    sim.gemini.push(ScriptedReply("Gemini alone."))
    result = ask(sim, home, "--mode", "gemini", "--style", "council", "Explain Table 1")
    assert result.returncode == 0 and result.stdout.strip() == "Gemini alone."
    assert "note: --style council is how several models deliberate; Gemini answers alone" in result.stderr
    sim.openai.push(ScriptedReply("ChatGPT alone."))
    assert "note:" not in ask(sim, home, "--mode", "chatgpt", "And Table 2?").stderr  # no --style, no note
