"""Quotes checked against the paper, as a user sees them: in the chat, each quote marked found
on its page or not in the paper, with one summary line; in the model panes for each proposal;
in the run report; and again after a restart."""

from __future__ import annotations

from tests.core.test_quotes import ACROSS_LINE, PAGE_TWO
from tests.ui.conftest import SIZE, rendered_text, restarted_app, settle, show_pane, type_text

FABRICATED = "ensembles of language models always outperform every single model on every benchmark"
REPLY = (
    f'The paper says "{ACROSS_LINE}" and, later, "{PAGE_TWO}" It never says "{FABRICATED}", '
    f'nor "{ACROSS_LINE.replace("87", "78")}".'
)


async def test_quotes_in_a_reply_and_a_proposal_are_marked_against_the_pdf(
    workspace, chatty, make_app, sample_pdf, home
):
    workspace.select_pdf(sample_pdf)
    chatty["ChatGPT"].scripts["proposer"] = [REPLY]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "What does the paper report?")
        await pilot.press("f12")
        await settle(pilot)
        shown = rendered_text(app.main.chat.log_view.entries[-1].content, width=400)
        assert "✓ p. 1" in shown and "✓ p. 2" in shown
        assert shown.count("✗ not in the paper") == 2
        assert "Quotes: 4 checked, 2 found, 2 not in the paper" in shown
        assert app.main.chat.log_view.items[-1].text == REPLY  # the reply's own text stays as written
        await show_pane(pilot, "chatgpt")
        pane = rendered_text(app.main.model_pane("ChatGPT").query_one(".model-output").content, width=400)
        assert "✓ p. 1" in pane and "Quotes: 4 checked, 2 found" in pane
        (run,) = app.workspace.archive.turns(app.main.chat_id)
        from ensemble_tui.core.records.report import turn_report

        (section,) = [s for s in turn_report(run.record) if s.title == "Quote checks"]
        assert 'quote ✓ p. 1: "aggregation with one resynthesis round answered 87' in section.markdown
    again = restarted_app(home)
    async with again.run_test(size=SIZE):
        assert "✓ p. 1" in rendered_text(again.main.chat.log_view.entries[-1].content, width=400)


def test_marks_of_quotes_not_in_the_paper_are_in_the_warning_colour():
    from rich.console import Console

    from ensemble_tui.ui.chat_log.quote_marks import marked, with_marks
    from ensemble_tui.ui.chat_log.rendering import markdown

    checks = {
        "notice": None,
        "quotes": [
            {"text": "one two three four five six", "start": 4, "end": 33, "page": 3},
            {"text": "seven eight nine ten eleven twelve", "start": 38, "end": 74, "page": None},
        ],
        "references": [],
    }
    text = 'See "one two three four five six" and "seven eight nine ten eleven twelve".'
    shown, _summary = marked(text, checks)
    console = Console(width=30)  # narrow: the mark wraps, and both pieces take the colour
    segments = [s for line in console.render_lines(with_marks(markdown(shown), checks)) for s in line]
    colours = {s.text.strip(): s.style.color.name if s.style and s.style.color else None for s in segments}
    missing = [piece for piece in colours if piece and piece in "✗ not in the paper"]
    assert missing and all(colours[piece] == "yellow" for piece in missing)
    assert colours.get("✓ p. 3") is None  # found marks keep the text's colour


async def test_quotes_in_the_resubmissions_pane_are_marked_and_stay_marked_after_a_restart(
    workspace, chatty, make_app, sample_pdf, home
):
    from ensemble_tui.ui.panes.resubmissions import ResubmissionEntry

    workspace.select_pdf(sample_pdf)
    chatty["Claude"].scripts["proposer"] = [REPLY, "Revised."]
    chatty["ChatGPT"].scripts["aggregator"] = ["REQUEST SYNTHESIS FROM PROPOSERS\nAgree first", "FINAL REPLY:\nAgreed."]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "What does the paper report?")
        await pilot.press("f5")
        await settle(pilot)
        await show_pane(pilot, "resubmissions")
        (entry,) = app.main.resubmissions.query(ResubmissionEntry)
        assert FABRICATED in entry.item.text  # Claude's proposal went back in the request
        shown = rendered_text(entry.content, width=400)
        assert "✓ p. 1" in shown and "✓ p. 2" in shown and "✗ not in the paper" in shown
        assert "Quotes: 4 checked, 2 found, 2 not in the paper" in shown
    again = restarted_app(home)
    async with again.run_test(size=SIZE) as pilot:
        await show_pane(pilot, "resubmissions")
        (entry,) = again.main.resubmissions.query(ResubmissionEntry)
        assert "Quotes: 4 checked, 2 found, 2 not in the paper" in rendered_text(entry.content, width=400)


def test_a_quote_the_reply_follows_with_its_page_is_not_given_the_page_twice():
    """Issue 35, polish: `✓ p. 1 (p. 1)`."""
    from ensemble_tui.ui.chat_log.quote_marks import MARK_END, MARK_START, marked

    text = 'See "one two three four five six" (p. 3) and "seven eight nine ten eleven twelve" here.'
    checks = {
        "notice": None,
        "quotes": [
            {"text": "one two three four five six", "start": 4, "end": 33, "page": 3},
            {"text": "seven eight nine ten eleven twelve", "start": 45, "end": 81, "page": 4},
        ],
        "references": [],
    }
    shown, _summary = marked(text, checks)
    shown = shown.replace(MARK_START, "").replace(MARK_END, "")  # the invisible ends of a clickable mark
    assert '"one two three four five six" *✓* (p. 3)' in shown and "p. 3 (p. 3)" not in shown
    assert '"seven eight nine ten eleven twelve" *✓ p. 4* here' in shown
