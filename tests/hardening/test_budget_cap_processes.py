"""The budget is a hard cap across processes and signals (issue 24 §2, issue 34 §2-3), end to end:
real `ask` processes (the one-run cut at the cap in this one), the real SDKs, the loopback
simulator. The cap allows about 2.5 turns of 3,000 output tokens at gpt-5's prices. A killed
turn's reservations stay counted, shown as unconfirmed, until `budget --release`; a Claude call
with a PDF is bounded by its pages and its `max_uses`, and a bill past the bound stops the turn."""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.simulator import ScriptedReply, Simulator
from tests import forked
from tests.core.helpers import restored_session
from tests.core.pdf_factory import text_pdf
from tests.forked import ForkedCommand
from tests.support import process_environment, run_command

CAP = 0.10  # a turn of 3,000 output tokens at $10 per 1M, and its prompt, costs about $0.04


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator() as simulator:
        yield simulator


def chat_with_cap(home: Path, cap: float) -> str:
    workspace = Workspace.open(home)  # the chat every run below shares
    workspace.update_settings(budget_usd=cap)
    return workspace.session.id


def start_ask(sim: Simulator, home: Path, *args: str) -> ForkedCommand:
    """`ensemble-tui ask ARGS` in a process of its own, to be signalled (forked with the SDKs
    imported: tests/forked.py), its stderr read as it runs."""
    env = process_environment(home.parent, sim.env)
    return forked.start(["ask", "--home", str(home), *args], env, home.parent, stderr_pipe=True)


def test_eight_parallel_runs_on_one_chat_make_at_most_two_turns_calls(sim: Simulator, home: Path) -> None:
    chat_with_cap(home, CAP)
    sim.openai.default = ScriptedReply("An answer.", usage={"output_tokens": 3_000}, latency_s=0.3)
    env = process_environment(home.parent, sim.env)
    argv = ["ask", "--home", str(home), "--mode", "chatgpt"]  # each a process of its own (tests/forked.py)
    runs = [forked.start([*argv, f"Q{n}: at the same time"], env, home.parent) for n in range(8)]
    results = [run.communicate(timeout=180) + (run.returncode,) for run in runs]

    answered = [out for out, _err, code in results if code == 0]
    assert 1 <= len(answered) <= 2, [err for _out, err, _code in results]
    assert len(sim.openai.calls) <= 2
    for _out, err, code in results:
        assert code == 0 or "Budget stop" in err, err
    assert restored_session(home).cost_usd <= CAP


def test_a_reply_scripted_at_20000_output_tokens_is_cut_at_the_cap(sim: Simulator, home: Path) -> None:
    chat_with_cap(home, CAP)
    sim.openai.push(ScriptedReply("A very long answer. " * 4_000, usage={"output_tokens": 20_000}))
    # One run, no signal: in this process, through the same entry point (tests.support.run_command).
    done = run_command(home, "ask", "--mode", "chatgpt", "Tell me everything.", env=sim.env)
    out, err = done.stdout, done.stderr

    sent = sim.openai.calls[0].body["max_output_tokens"]
    assert 4_000 <= sent < 10_000  # what $0.10 affords at $10 per 1M, less the prompt
    assert out.rstrip().endswith(f"*(Cut short at the {sent:,}-token output limit.)*")
    assert sum(1 for line in err.splitlines() if "cut at its" in line) == 1
    assert 0.04 < restored_session(home).cost_usd <= CAP


def test_sigterm_records_the_cost_of_what_was_answered(sim: Simulator, home: Path) -> None:
    session_id = chat_with_cap(home, 5.0)
    for script in (sim.openai, sim.gemini):
        script.default = ScriptedReply("A quick proposal.", usage=None)
    sim.anthropic.default = ScriptedReply("A slow proposal.", latency_s=60)
    run = start_ask(sim, home, "--mode", "all", "Which lemma matters?")
    assert run.stderr is not None
    seen = []
    while not any("ChatGPT" in line and "Gemini" in line and "answered" in line for line in seen):
        seen.append(run.stderr.readline())  # the status line names the proposers that answered
        assert seen[-1], seen
    for _ in range(600):  # Claude's call is out (it answers only after a minute)
        if sim.anthropic.calls:
            break
        time.sleep(0.05)
    run.send_signal(signal.SIGTERM)
    _out, err = run.communicate(timeout=60)

    assert run.returncode != 0 and "cancelled" in err
    (turn,) = RunArchive(home / "History.sqlite3").turns(session_id)
    outcomes = sorted(call.outcome for call in turn.record.calls)
    assert outcomes == ["cancelled", "ok", "ok"]
    # Claude's call, still in flight, at its input alone, as an estimate (issue 34 §2; it was its worst case)
    assert [call.estimated for call in turn.record.calls if call.outcome == "cancelled"] == [True]
    answered = sum(call.cost_usd for call in turn.record.calls if call.outcome == "ok")
    assert answered > 0
    assert restored_session(home).cost_usd == pytest.approx(turn.record.turn_cost_usd)
    assert restored_session(home).cost_usd > answered


def test_a_killed_turn_shows_as_unconfirmed_and_can_be_released_and_continued(sim: Simulator, home: Path) -> None:
    session_id = chat_with_cap(home, 1.0)  # the killed call reserves nearly all of it
    sim.openai.push(ScriptedReply("An opening answer.", usage={"output_tokens": 100}))
    assert run_command(home, "ask", "--mode", "chatgpt", "Opening", env=sim.env).returncode == 0
    sim.openai.default = ScriptedReply("A slow answer.", latency_s=60)
    run = start_ask(sim, home, "--mode", "chatgpt", "Killed mid-call")
    for _ in range(600):  # the call is out, its worst case reserved
        if len(sim.openai.calls) == 2:
            break
        time.sleep(0.05)
    run.send_signal(signal.SIGKILL)
    run.communicate(timeout=60)

    listed = run_command(home, "history")
    assert listed.returncode == 0, listed.stderr
    note = next((line for line in listed.stdout.splitlines() if "unconfirmed" in line), listed.stdout)
    assert re.search(r"up to \$\d+\.\d\d unconfirmed from a turn cut off at \d\d:\d\d", note), note
    assert f"budget --release --chat {session_id}" in note

    sim.openai.default = ScriptedReply("A quick answer.", usage={"output_tokens": 100})
    refused = run_command(home, "ask", "--mode", "chatgpt", "Before the release", env=sim.env)
    assert refused.returncode != 0 and "unconfirmed from a turn cut off" in refused.stderr, refused.stderr

    released = run_command(home, "budget", "--release", "--chat", session_id)
    assert released.returncode == 0, released.stderr
    (warning,) = released.stderr.strip().splitlines()
    assert warning.startswith("Released $") and "billed" in warning
    assert "unconfirmed" not in released.stdout

    after = run_command(home, "ask", "--mode", "chatgpt", "After the release", env=sim.env)
    assert after.returncode == 0, after.stderr
    assert after.stdout.strip().startswith("A quick answer.")


def test_a_claude_call_with_a_pdf_is_bounded_and_a_bill_past_the_bound_stops_the_turn(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    # Issue 34 §3: the fake reports 250,000 input tokens and 8 searches for a 2-page PDF under a $0.25 cap.
    chat_with_cap(home, 0.25)
    pdf = text_pdf(tmp_path / "paper.pdf", ["Page one of the paper.", "Page two of the paper."])
    sim.anthropic.push(
        ScriptedReply(
            "An answer that read far more than the paper.",
            usage={"input_tokens": 250_000, "output_tokens": 500},
            searches=tuple(f"query {n}" for n in range(8)),
        )
    )
    asked = run_command(home, "ask", "--mode", "claude", "--pdf", str(pdf), "What does it say?", env=sim.env)

    (call,) = sim.anthropic.calls  # one call, and no other once its bill showed the overrun
    (tool,) = [tool for tool in call.body.get("tools", []) if str(tool.get("type", "")).startswith("web_search")]
    assert tool["max_uses"] == 3  # the searches its reservation counted, capped in the request
    assert asked.returncode != 0
    line = next(line for line in asked.stderr.splitlines() if "Budget stop" in line)
    assert "billed" in line and "more than" in line and "$0.25 cap" in line, line
    assert re.search(r"this turn cost \$0\.78\d\d", asked.stderr)  # 250,000 tokens in, 3 searches (not 8)
