"""The run archive, the run report and exports, from real turns through scripted providers."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.records.export import FORMATS, export_session, export_turn, write_export
from ensemble_tui.core.records.report import turn_report
from ensemble_tui.core.turn.events import ReplyCommitted
from ensemble_tui.core.workspace import Workspace
from tests.core.helpers import of_type, run_turn
from tests.core.test_styles import MODELS, answer, critique_by
from tests.support import fatal


async def test_every_run_is_archived_with_its_calls_and_texts(home: Path, workspace, scripted, make_engine):
    for label in MODELS:
        scripted[label].scripts["proposer"] = [answer(label)]
    scripted["ChatGPT"].scripts["aggregator"] = ["REQUEST SYNTHESIS FROM PROPOSERS\nTighten it.", "FINAL REPLY:\nDone."]
    for label in MODELS:
        scripted[label].scripts["synthesis"] = [f"revised by {label}"]
    engine = make_engine()
    await run_turn(engine, Mode.ALL, "Archive me")
    scripted["Claude"].scripts["proposer"] = [fatal("Claude")]
    await run_turn(engine, Mode.CLAUDE, "This one fails")

    stored = Workspace.open(home).archive.turns(workspace.session.id)
    assert [t.record.outcome for t in stored] == ["final", "failed"]
    first = stored[0].record
    assert first.query == "Archive me" and len(first.calls) == 8  # 3 + 1 + 3 + 1
    kinds = [a.kind for a in first.artifacts]
    assert kinds.count("answer") == 6 and kinds.count("aggregation") == 2 and "resubmission" in kinds
    assert first.artifacts[-1].kind == "final" and first.artifacts[-1].text == "Done."

    titles = [section.title for section in turn_report(first)]
    assert titles == ["Summary", "Calls", "Answers", "Resubmissions", "Aggregator passes", "Final reply"]
    calls = turn_report(first)[1].markdown
    assert calls.count("| ChatGPT |") == 4 and "aggregator" in calls


async def test_vote_report_shows_the_borda_table(workspace, scripted, make_engine):
    scores = {answer("ChatGPT"): 6, answer("Claude"): 9, answer("Gemini"): 3}
    for label in MODELS:
        scripted[label].scripts["proposer"] = [answer(label)]
        scripted[label].scripts["critique"] = [critique_by(scores)]
    await anext_final(make_engine(), Mode.ALL, "q", Style.VOTE)
    (turn,) = workspace.archive.turns(workspace.session.id)
    sections = {s.title: s.markdown for s in turn_report(turn.record)}
    assert "| 1 | Claude | 2 | 2 | 9.00 | 9.00 |  |" in sections["Vote"]
    assert "Critique by ChatGPT (A = " in sections["Reviews"] and "counted" in sections["Reviews"]


async def anext_final(engine, mode, text, style):
    events = [event async for event in engine.run(mode, text, style)]
    assert of_type(events, ReplyCommitted)
    return events


async def test_history_lists_sessions_and_reopens_one(home: Path, workspace, scripted, make_engine):
    scripted["Claude"].scripts["proposer"] = ["First chat reply.", "Second chat reply."]
    engine = make_engine()
    await run_turn(engine, Mode.CLAUDE, "Question of chat one")
    first_id = workspace.session.id
    workspace.new_chat()
    await run_turn(engine, Mode.CLAUDE, "Question of chat two")
    summaries = workspace.archive.sessions()
    assert [s.first_question for s in summaries] == ["Question of chat two", "Question of chat one"]
    assert all(s.turns == 1 and s.cost_usd > 0 for s in summaries)
    reopened = workspace.reopen(first_id)
    assert [m.text for m in reopened.history] == ["Question of chat one", "First chat reply."]
    assert Workspace.open(home).session.id == first_id


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href") and value and tag != "a":
                self.external.append(value)


async def test_exports_in_every_format_are_self_contained_and_inert(workspace, scripted, make_engine, tmp_path):
    hostile = "Reply with <script>alert(1)</script> and <img src=x onerror=alert(2)> | a table pipe"
    scripted["Gemini"].scripts["proposer"] = [hostile]
    await run_turn(make_engine(), Mode.GEMINI, "Export me")
    (turn,) = workspace.archive.turns(workspace.session.id)
    for fmt in FORMATS:
        turn_text = export_turn(turn.record, fmt)
        session_text = export_session(workspace.session, [turn.record], fmt)
        path = write_export(tmp_path, "Export me", fmt, session_text)
        assert path.read_text() == session_text and path.suffix == f".{fmt}"
        assert "Export me" in turn_text and "Export me" in session_text
    data = json.loads(export_session(workspace.session, [turn.record], "json"))
    assert data["session"]["history"][1]["text"] == hostile and data["turns"][0]["outcome"] == "final"
    page = export_session(workspace.session, [turn.record], "html")
    assert "<script>" not in page and "&lt;script&gt;" in page and "<img" not in page
    collector = _Collector()
    collector.feed(page)
    assert collector.external == [] and "table" in collector.tags and "style" in collector.tags
    assert write_export(tmp_path, "Export me", "html", page).name == "Export-me-2.html"


async def test_council_report_shows_average_positions(workspace, scripted, make_engine):
    from tests.core.test_styles import ranking_by

    preference = [answer("Claude"), answer("Gemini"), answer("ChatGPT")]
    for label in MODELS:
        scripted[label].scripts["proposer"] = [answer(label)]
        scripted[label].scripts["ranking"] = [ranking_by(preference)]
    scripted["ChatGPT"].scripts["chairman"] = ["Chair."]
    await anext_final(make_engine(), Mode.ALL, "q", Style.COUNCIL)
    (turn,) = workspace.archive.turns(workspace.session.id)
    sections = {s.title: s.markdown for s in turn_report(turn.record)}
    assert "| 1 | Claude | 1.00 | 2 |" in sections["Vote"] and "3 of 3 ballots counted." in sections["Vote"]
    assert "**Mode:** All · **style:** Council" in sections["Summary"]


def test_the_markdown_and_html_exports_carry_each_quote_verdict() -> None:
    from ensemble_tui.core.chat.session import ChatMessage, SessionData

    checks = {
        "notice": None,
        "quotes": [
            {"text": "one two three four five six", "start": 4, "end": 33, "page": 3},
            {"text": "seven eight nine ten eleven twelve", "start": 38, "end": 74, "page": None},
        ],
        "references": [],
    }
    reply = 'See "one two three four five six" and "seven eight nine ten eleven twelve".'
    session = SessionData(
        id="2026-01-01_00-00-00",
        history=[
            ChatMessage(role="user", text="What does it say?"),
            ChatMessage(role="assistant", text=reply, checks=checks),
        ],
    )
    markdown = export_session(session, [], "md")
    assert '"one two three four five six" *✓ p. 3*' in markdown
    assert '"seven eight nine ten eleven twelve" **✗ not in the paper**' in markdown
    page = export_session(session, [], "html")
    assert "<em>✓ p. 3</em>" in page and "<strong>✗ not in the paper</strong>" in page
    data = json.loads(export_session(session, [], "json"))
    assert data["session"]["history"][1]["text"] == reply  # the JSON keeps the reply as written, checks as data


def test_a_quote_the_reply_follows_with_its_page_gets_a_tick_alone_in_the_exports_as_in_the_chat() -> None:
    """The chat writes '"…" ✓ (p. 3)' where the reply cites the page itself; the exports wrote
    '"…" ✓ p. 3 (p. 3)'."""
    from ensemble_tui.core.chat.session import ChatMessage, SessionData

    reply = 'See "one two three four five six" (p. 3).'
    checks = {"notice": None, "quotes": [{"text": "one two three four five six", "start": 4, "end": 33, "page": 3}]}
    checks["references"] = []
    session = SessionData(
        id="2026-01-01_00-00-00",
        history=[
            ChatMessage(role="user", text="What does it say?"),
            ChatMessage(role="assistant", text=reply, checks=checks),
        ],
    )
    assert 'See "one two three four five six" *✓* (p. 3).' in export_session(session, [], "md")
    assert "<em>✓</em> (p. 3)" in export_session(session, [], "html")
