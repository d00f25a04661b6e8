"""The Compare view (Ctrl+F): the last run's proposals side by side or stacked, through Pilot."""

from __future__ import annotations

from ensemble_tui.ui.actions.archive_flow import NO_RUNS
from ensemble_tui.ui.screens.compare import NO_PDF, CompareColumn, CompareScreen
from tests.core.test_quotes import ACROSS_LINE
from tests.support import Hang
from tests.ui.conftest import SIZE, key_in_play, rendered_text, settle, type_text, wait_until
from tests.ui.test_styles import well_formed_reviews

LONG = "\n\n".join(f"Paragraph {n} of a long answer about the bound." for n in range(1, 61))


async def ask(pilot, text: str, key: str = "f5") -> None:
    await type_text(pilot, text)
    await pilot.press(key)
    await settle(pilot)


async def open_compare(pilot) -> CompareScreen:
    await pilot.press("ctrl+f")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, CompareScreen) and bool(pilot.app.screen.columns()))
    await pilot.pause()
    return pilot.app.screen


def header(column: CompareColumn) -> str:
    return column.header().plain


def lefts_and_tops(screen: CompareScreen) -> tuple[set[int], set[int]]:
    regions = [column.region for column in screen.columns()]
    return {r.x for r in regions}, {r.y for r in regions}


async def test_an_all_turn_is_shown_side_by_side_at_120_columns_and_l_stacks_it_from_the_key_or_the_palette(
    workspace, chatty, make_app
):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f")  # nothing to compare yet: the status line says so, no screen
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen)
        assert app.main.chat.status.text == NO_RUNS
        await ask(pilot, "What is new?")
        screen = await open_compare(pilot)
        columns = screen.columns()
        assert [c.proposal.author for c in columns] == ["ChatGPT", "Claude", "Gemini"]
        assert [c.proposal.text for c in columns] == ["ChatGPT answer", "Claude answer", "Gemini answer"]
        lefts, tops = lefts_and_tops(screen)
        assert len(lefts) == 3 and len(tops) == 1  # three columns in one row
        first = header(columns[0])
        assert first.startswith("ChatGPT · ") and " s · $" in first
        assert all(NO_PDF in header(c) for c in columns)  # this chat has no PDF
        assert not key_in_play(app, "mode.all")  # the main screen's keys wait behind it

        await pilot.press("l")
        await pilot.pause()
        lefts, tops = lefts_and_tops(screen)
        assert len(lefts) == 1 and len(tops) == 3  # one above the other
        await pilot.press("tab")
        assert app.focused is screen.columns()[1]
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, CompareScreen))

        # The palette opens the view too, and names its key.
        (command,) = [c for c in app.get_system_commands(app.screen) if c.title == "Compare the proposals"]
        assert "Ctrl+F" in command.help
        command.callback()
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen) and len(app.screen.columns()) == 3)


async def test_at_80_columns_the_proposals_are_stacked_and_l_puts_them_side_by_side(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, "What is new?")
        screen = await open_compare(pilot)
        lefts, tops = lefts_and_tops(screen)
        assert len(lefts) == 1 and len(tops) == 3
        await pilot.press("l")
        await pilot.pause()
        lefts, tops = lefts_and_tops(screen)
        assert len(lefts) == 3 and len(tops) == 1


async def test_left_and_right_move_between_the_rounds_of_a_resynthesis(workspace, chatty, make_app):
    """And they keep the column being read (issue 35, polish: ←/→ put the focus back on
    ChatGPT's column)."""
    for label in ("ChatGPT", "Claude", "Gemini"):
        chatty[label].scripts["proposer"] = [f"first by {label}"]
        chatty[label].scripts["synthesis"] = [f"second by {label}"]
    chatty["ChatGPT"].scripts["aggregator"] = ["REQUEST SYNTHESIS FROM PROPOSERS\nAgree first", "FINAL REPLY:\nAgreed."]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "Is the bound tight?")
        screen = await open_compare(pilot)
        title = str(screen.query_one("#compare-title").content)
        assert "Resynthesis 1 · round 2 of 2" in title  # the last round first
        assert {c.proposal.text for c in screen.columns()} == {f"second by {n}" for n in chatty}
        await pilot.press("tab")  # to the second column
        await pilot.pause()
        author = screen.focused.proposal.author
        assert author != screen.columns()[0].proposal.author
        await pilot.press("left")
        firsts = {f"first by {n}" for n in chatty}
        await wait_until(pilot, lambda: {c.proposal.text for c in screen.columns()} == firsts and screen.index == 0)
        assert "First proposals · round 1 of 2" in str(screen.query_one("#compare-title").content)
        assert screen.focused.proposal.author == author
        await pilot.press("left")  # already the first round: stays
        await pilot.pause()
        assert screen.index == 0
        await pilot.press("right")
        await wait_until(pilot, lambda: screen.index == 1 and screen.columns()[0].proposal.text.startswith("second"))
        assert screen.focused.proposal.author == author


async def test_a_vote_run_shows_each_answers_rank_and_points(workspace, chatty, make_app):
    well_formed_reviews(chatty)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f8")
        await ask(pilot, "Then a vote")
        screen = await open_compare(pilot)
        (vote,) = [a for a in workspace.archive.turns(app.main.chat_id)[-1].record.artifacts if a.kind == "vote"]
        tally = {s["author"]: s for s in vote.data["standings"]}
        assert len(tally) == 3
        for column in screen.columns():
            mine = tally[column.proposal.author]
            assert f"rank {mine['rank']} · {mine['points']:g} points" in header(column)


async def test_side_by_side_the_columns_scroll_together(workspace, chatty, make_app):
    for label in ("ChatGPT", "Claude", "Gemini"):
        chatty[label].default = LONG if label != "Claude" else LONG + "\n\n" + LONG
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "Long answers")
        screen = await open_compare(pilot)
        first, second, third = screen.columns()
        assert first.max_scroll_y > 0 and second.max_scroll_y > first.max_scroll_y
        await pilot.press("end")  # the focused (first) column to its end
        await wait_until(pilot, lambda: first.scroll_y == first.max_scroll_y)
        await wait_until(pilot, lambda: second.scroll_y == second.max_scroll_y and third.scroll_y == third.max_scroll_y)
        await pilot.press("home")
        await wait_until(pilot, lambda: second.scroll_y == 0 and third.scroll_y == 0)


async def test_with_the_chats_pdf_each_column_says_how_its_quotes_fared(workspace, chatty, make_app, sample_pdf):
    workspace.select_pdf(sample_pdf)
    chatty["ChatGPT"].default = f'The paper says "{ACROSS_LINE}".'
    chatty["Claude"].default = '"aggregation with one resynthesis round answered 78 correctly, against 74"'
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "What did they measure?")
        screen = await open_compare(pilot)
        await wait_until(pilot, lambda: "checking" not in "".join(header(c) for c in screen.columns()))
        by_author = {c.proposal.author: header(c) for c in screen.columns()}
        assert "Quotes: 1 checked, 1 found" in by_author["ChatGPT"]
        assert "1 not in the paper" in by_author["Claude"]
        assert "Quotes: none to check" in by_author["Gemini"]
        warned = {c.proposal.author: c.quote_line.style == "bold yellow" for c in screen.columns()}
        assert warned == {"ChatGPT": False, "Claude": True, "Gemini": False}  # only a quote not found is a warning
        bodies = {c.proposal.author: rendered_text(c.query_one(".compare-body").content, 200) for c in screen.columns()}
        assert f'"{ACROSS_LINE}" ✓ p. 1' in " ".join(bodies["ChatGPT"].split())  # each quote marked
        assert "✗ not in the paper" in bodies["Claude"]
        assert "✓" not in bodies["Gemini"] and "✗" not in bodies["Gemini"]


async def test_a_cancelled_run_is_marked_cancelled(workspace, chatty, make_app):
    chatty["Gemini"].scripts["proposer"] = [Hang()]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Slow question")
        await pilot.press("f5")
        await wait_until(pilot, lambda: len(chatty["Claude"].calls) == 1 and len(chatty["ChatGPT"].calls) == 1)
        await pilot.pause(0.2)
        await pilot.press("escape")
        await settle(pilot)
        screen = await open_compare(pilot)
        title = str(screen.query_one("#compare-title").render())
        assert "✗ run cancelled" in title
