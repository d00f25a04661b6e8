"""The line that says who wrote a reply: mode, style, models, and who failed and why."""

from __future__ import annotations

from ensemble_tui.core.chat.modes import Mode, SingleModel, Style
from ensemble_tui.core.chat.provenance import VoteRow, describe, points, short_reason
from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.records.report import turn_report

MODELS = {"ChatGPT": "gpt-5", "Claude": "claude-sonnet-4-6", "Gemini": "gemini-2.5-pro"}
ALL = ("ChatGPT", "Claude", "Gemini")


def test_an_aggregated_reply_names_the_aggregator_the_count_and_a_failure_in_a_few_words():
    provenance = describe(
        Mode.ALL,
        Style.AGGREGATE,
        MODELS,
        participants=ALL,
        answered=("ChatGPT", "Claude"),
        failures={"Gemini": "Gemini: rate limited (429) - wait a minute and retry"},
        aggregator="ChatGPT",
    )
    assert provenance.line == "All · aggregator gpt-5 · 2 of 3 proposals · Gemini failed: rate limited"
    assert provenance.tally == [] and provenance.style is None


def test_a_vote_names_the_winner_model_and_its_points_singular_or_plural():
    rows = (VoteRow("Claude", 1, 1.0, 1), VoteRow("ChatGPT", 2, 0.0, 0))
    provenance = describe(
        Mode.ALL, Style.VOTE, MODELS, participants=ALL, answered=ALL, failures={}, aggregator="ChatGPT", tally=rows
    )
    assert provenance.line == "All · Critique & vote · winner claude-sonnet-4-6 (1 pt)"
    assert provenance.style == "vote" and provenance.tally == list(rows)
    assert points(9) == "9 pts" and points(2.5) == "2.5 pts" and points(1) == "1 pt"


def test_a_single_model_reply_names_its_model_only():
    provenance = describe(
        Mode.CLAUDE,
        Style.COUNCIL,
        MODELS,
        participants=("Claude",),
        answered=("Claude",),
        failures={},
        aggregator="ChatGPT",
    )
    assert provenance.line == "Claude · claude-sonnet-4-6"
    added = describe(
        SingleModel("DeepSeek"),
        Style.AGGREGATE,
        {"DeepSeek": "deepseek-chat"},
        participants=("DeepSeek",),
        answered=(),
        failures={},
        aggregator="ChatGPT",
    )
    assert added.line == "DeepSeek · deepseek-chat"


def test_short_reasons_stay_short():
    assert short_reason("Claude", "Claude: overloaded (529)") == "overloaded"
    assert len(short_reason("Gemini", "Gemini: " + "very long reason " * 10)) <= 40


def test_the_run_report_shows_no_style_for_a_single_model_run():
    single = turn_report(TurnRecord(session="s", mode="claude", style="council", query="q"))
    multi = turn_report(TurnRecord(session="s", mode="all", style="council", query="q"))
    assert "style" not in single[0].markdown and "**Mode:** Claude · **outcome:**" in single[0].markdown
    assert "**style:** Council" in multi[0].markdown


async def test_the_transcript_the_exports_and_the_report_carry_the_line(workspace, scripted, make_engine):
    from ensemble_tui.core.chat.modes import Mode as M
    from ensemble_tui.core.records.export import export_session, export_turn
    from tests.core.helpers import run_turn

    scripted["Claude"].scripts["proposer"] = ["An answer."]
    await run_turn(make_engine(), M.CLAUDE, "A question")
    line = f"Claude · {workspace.model_for('Claude')}"
    transcript = (workspace.paths.chats / f"{workspace.session.id}.md").read_text(encoding="utf-8")
    assert f"An answer.\n\n*{line}*" in transcript
    records = [stored.record for stored in workspace.archive.turns(workspace.session.id)]
    for fmt in ("md", "html", "json"):
        assert line in export_session(workspace.session, records, fmt)
        assert line in export_turn(records[-1], fmt)


async def test_a_redo_carries_its_own_line(workspace, scripted, make_engine):
    from ensemble_tui.core.chat.modes import Mode as M
    from tests.core.helpers import run_turn

    scripted["Claude"].scripts["proposer"] = ["First answer."]
    scripted["Gemini"].scripts["proposer"] = ["Redone answer."]
    engine = make_engine()
    await run_turn(engine, M.CLAUDE, "A question")
    await run_turn(engine, M.GEMINI, "")  # redo with Gemini
    (reply,) = [m for m in workspace.session.history if m.role == "assistant"]
    assert reply.text == "Redone answer."
    assert reply.provenance.line == f"Gemini · {workspace.model_for('Gemini')}"
