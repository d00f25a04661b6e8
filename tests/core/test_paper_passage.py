"""Issue 32 §3: where a quotation is in the paper (its page and character range in that page's
shown text), the closest passage of one that is not, and the range in the JSON exports."""

from __future__ import annotations

import json
from pathlib import Path

from ensemble_tui.core.chat.runlog import Artifact, TurnRecord
from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.paper.passage import paper_text
from ensemble_tui.core.paper.quotes import check_reply_against_pdf
from ensemble_tui.core.records.export import export_session, export_turn
from ensemble_tui.core.workspace import Workspace
from tests.core.test_quotes import ACROSS_LINE, PAGE_TWO

RUNNING_TITLE = "Journal of Toy Results"
PAGES = [
    f"{RUNNING_TITLE}\nIntroduction text about ensembles.\nThe ﬁnal re-\nsult was 87 of 120 questions [12].\n1",
    f"{RUNNING_TITLE}\nThe models were asked again on the second page.\nCafé au lait is not a method.\n2",
    f"{RUNNING_TITLE}\nA third page closes the note with a short summary of it all.\n3",
]


def shown(paper, passage) -> str:
    return paper.pages[passage.page - 1][passage.start : passage.end]


def test_a_quotation_is_located_as_a_range_of_its_page_without_the_running_header():
    paper = paper_text(PAGES)
    assert not any(RUNNING_TITLE in page for page in paper.pages)  # the header is left out, as the checks do
    found = paper.locate("the final result was 87 of 120 questions.")
    assert found is not None and found.exact and found.page == 1
    # a ligature and a hyphen across lines in the page, the citation left out by the quote: still its words
    assert shown(paper, found) == "The ﬁnal re-\nsult was 87 of 120 questions"
    accented = paper.locate("cafe au lait is not a method")
    assert accented is not None and accented.page == 2 and shown(paper, accented) == "Café au lait is not a method"


def test_a_misquotation_gets_its_closest_passage_and_a_stranger_none():
    paper = paper_text(PAGES)
    close = paper.locate("the models were asked once more on the second page")
    assert close is not None and not close.exact and close.page == 2
    assert shown(paper, close).startswith("The models were asked") and shown(paper, close).endswith("second page")
    assert paper.locate("nothing of this sort appears anywhere in that paper") is None


def test_find_ignores_case_accents_and_line_breaks():
    paper = paper_text(PAGES)
    assert [
        (page, shown_text)
        for page, start, end in paper.find("CAFE au")
        for shown_text in [paper.pages[page - 1][start:end]]
    ] == [(2, "Café au")]
    assert [page for page, _start, _end in paper.find("final re-")] == [1]


def test_the_json_exports_give_each_found_quote_its_page_and_range(sample_pdf: Path, tmp_path: Path, home: Path):
    reply = f'It says "{ACROSS_LINE}" and "{PAGE_TWO}"'
    checks = check_reply_against_pdf(reply, sample_pdf, tmp_path / "Cache").as_record()
    record = TurnRecord(
        session="s",
        mode="chatgpt",
        style="aggregate",
        query="q",
        started_at="2026-01-02T09:31:00",
        outcome="final",
        artifacts=[Artifact("final", "", reply), Artifact("quotes", "", "", data=checks)],
    )
    from ensemble_tui.core.paper.passage import read_paper_text

    paper = read_paper_text(sample_pdf, tmp_path / "Cache")
    run = json.loads(export_turn(record, "json"))
    [quotes] = [a["data"]["quotes"] for a in run["artifacts"] if a["kind"] == "quotes"]
    for quote, words in zip(quotes, (ACROSS_LINE, PAGE_TWO), strict=True):
        at = quote["passage"]
        assert at["page"] == quote["page"]
        assert " ".join(paper.pages[at["page"] - 1][at["start"] : at["end"]].split()) == words
    session = Workspace.open(home).session
    session.history = [ChatMessage(role="assistant", text=reply, checks=checks)]
    chat = json.loads(export_session(session, [record], "json"))
    assert chat["session"]["history"][0]["checks"]["quotes"][1]["passage"]["page"] == 2


def test_the_view_reflows_layout_breaks_and_keeps_every_range():
    from ensemble_tui.core.paper.passage import reflowed

    page = "1 Introduction\nA single model can be confidently wrong when it\nanswers alone. Short line.\nNew paragraph."
    flowed = reflowed(page)
    assert len(flowed) == len(page)
    assert (
        flowed
        == "1 Introduction\nA single model can be confidently wrong when it answers alone. Short line.\nNew paragraph."
    )
    assert reflowed("a long line that the layout of the page wrapped here\n3 Results") == (
        "a long line that the layout of the page wrapped here\n3 Results"
    )
