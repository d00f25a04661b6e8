"""Quotations and references in a reply, checked against the shared sample PDF and generated ones.

The sample's text as pypdf reads it (two pages): page 1 has "...On our toy\\nbenchmark of 120
questions, aggregation with one resynthesis round answered 87 correctly, against 74 for the\\nbest
single model." (a line break inside the quotation the tests use), Table 1 with "Aggregation, with
resynthesis 87 9.8", and sections 1-3; page 2 has sections 4 and 5.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ensemble_tui.core.paper.paper_index import PaperIndex, build_index, compact, paper_index
from ensemble_tui.core.paper.pdf_pages import NO_TEXT_LAYER
from ensemble_tui.core.paper.quotes import (
    QuoteReport,
    annotate_markdown,
    check_quotes,
    check_reply_against_pdf,
    find_quotations,
    stderr_lines,
)
from tests.core.pdf_factory import scan_pdf, text_pdf

ACROSS_LINE = "aggregation with one resynthesis round answered 87 correctly, against 74 for the best single model"
PAGE_TWO = "Letting models read each other's work improves answers at a moderate cost."


@pytest.fixture
def sample(sample_pdf: Path, tmp_path: Path) -> PaperIndex:
    return paper_index(sample_pdf, tmp_path / "Cache")


def pages_of(report: QuoteReport) -> list[int | None]:
    return [check.page for check in report.quotes]


def test_a_quote_whose_words_break_across_a_line_is_found_on_its_page(sample: PaperIndex) -> None:
    report = check_quotes(f'The paper reports that "{ACROSS_LINE}".', sample)
    assert pages_of(report) == [1]


def test_one_changed_number_is_not_found(sample: PaperIndex) -> None:
    near_miss = ACROSS_LINE.replace("87", "78")
    report = check_quotes(f'They write "{near_miss}".', sample)
    assert pages_of(report) == [None]
    assert report.summary() == "Quotes: 1 checked, 0 found, 1 not in the paper"


def test_a_number_cut_short_or_a_lost_decimal_point_is_not_found(sample: PaperIndex) -> None:
    reply = (
        '"7 correctly, against 74 for the best single model" and '
        '"Aggregation, with resynthesis 87 98 Peer ranking + chairman" but '
        '"Aggregation, with resynthesis 87 9.8 Peer ranking + chairman"'
    )
    assert pages_of(check_quotes(reply, sample)) == [None, None, 1]


def test_a_fabricated_quote_and_a_paraphrase_are_not_found(sample: PaperIndex) -> None:
    reply = (
        'The authors claim "debate beats every other method on every benchmark we tried". '
        'They also say "aggregation plus one resynthesis round got 87 right, against 74 for the best single model".'
    )
    report = check_quotes(reply, sample)
    assert pages_of(report) == [None, None]


def test_a_dropped_or_added_word_is_not_found(sample: PaperIndex) -> None:
    reply = (
        '"Debate was the most expensive method because each round resends all answers" and '
        '"Debate was the most expensive method because every single round resends all answers"'
    )
    assert pages_of(check_quotes(reply, sample)) == [None, None]


def test_curly_quotes_apostrophes_case_and_spacing_do_not_matter(sample: PaperIndex) -> None:
    curly = PAGE_TWO.replace("'", "\u2019")
    reply = f'Page two: \u201c{curly}\u201d And shouted: "LETTING  MODELS read each other\'s\nwork improves answers"'
    assert pages_of(check_quotes(reply, sample)) == [2, 2]


def test_an_ellipsis_matches_any_gap_but_the_parts_must_be_there_in_order(sample: PaperIndex) -> None:
    reply = (
        '"We describe three ways to let several language models answer … and debate, where models '
        'revise their answers over several rounds" and "Debate was the most expensive method ... every round resends '
        'all answers to every model" but "Debate was the most expensive method ... every round resends all answers '
        'to every human" and "every round resends all answers to every model … Debate was the most expensive"'
    )
    assert pages_of(check_quotes(reply, sample)) == [1, 2, None, None]


def test_an_editorial_insertion_in_brackets_counts_as_a_gap(sample: PaperIndex) -> None:
    reply = (
        '"Resynthesis helped most on questions with [only] a single numeric answer, where one proposer\'s [...] slip"'
    )
    assert pages_of(check_quotes(reply, sample)) == [2]


def test_a_blockquote_is_one_quotation_and_its_attribution_line_is_not_part_of_it(sample: PaperIndex) -> None:
    reply = (
        "The field note concludes:\n\n"
        "> Letting models read each other's work improves answers\n"
        "> at a moderate cost.\n"
        "> — Section 5, p. 2\n\n"
        "And a made-up one:\n\n"
        "> Every model agreed with every other model on every question.\n"
    )
    report = check_quotes(reply, sample)
    assert pages_of(report) == [2, None]
    assert report.quotes[0].quotation.text.startswith("Letting models read")


def test_double_quotes_inside_a_blockquote_are_the_quotations(sample: PaperIndex) -> None:
    reply = f'> As the paper puts it, "{ACROSS_LINE}", which is a large gap.\n'
    report = check_quotes(reply, sample)
    assert [(check.quotation.text, check.page) for check in report.quotes] == [(ACROSS_LINE, 1)]


def test_short_quotes_and_quotes_in_code_are_not_checked(sample: PaperIndex) -> None:
    reply = (
        'The "aggregator" merges "the proposals of the others".\n\n'
        "```python\n"
        'print("this fabricated sentence sits in a fenced code block")\n'
        "```\n\n"
        'Inline: `"another fabricated sentence inside a code span here"` and ~~~ not a fence.\n'
    )
    assert find_quotations(reply) == []


def test_each_quotation_span_covers_its_quote_marks(sample: PaperIndex) -> None:
    reply = f'Before "{ACROSS_LINE}" after.'
    [quotation] = find_quotations(reply)
    assert reply[quotation.start : quotation.end] == f'"{ACROSS_LINE}"'


def test_page_references_beyond_the_page_count_are_marked(sample: PaperIndex) -> None:
    reply = "See p. 2 and page 1, but also p. 7, pp. 2-3 and pages 1–2."
    report = check_quotes(reply, sample)
    assert [(ref.text, ref.found) for ref in report.references] == [
        ("p. 2", True),
        ("page 1", True),
        ("p. 7", False),
        ("pp. 2-3", False),
        ("pages 1–2", True),
    ]


def test_tables_figures_sections_and_equations_the_paper_never_mentions_are_marked(sample: PaperIndex) -> None:
    reply = "Table 1 and Section 3 exist; Table 4, Figure 2, Fig. 1, Section 3.2 and Eq. (1) do not."
    report = check_quotes(reply, sample)
    assert [(ref.kind, ref.text, ref.found) for ref in report.references] == [
        ("table", "Table 1", True),
        ("section", "Section 3", True),
        ("table", "Table 4", False),
        ("figure", "Figure 2", False),
        ("figure", "Fig. 1", False),
        ("section", "Section 3.2", False),
        ("equation", "Eq. (1)", False),
    ]
    assert report.summary() == "5 references not in the paper (Table 4, Figure 2, Fig. 1, Section 3.2, Eq. (1))"


def test_labels_are_found_in_the_paper_whatever_their_spelling(tmp_path: Path) -> None:
    index = build_index(
        [
            "TABLE II: Results.\nAs Fig. 3 shows, the loss falls (see also Figure 4b).\n"
            "3.2 Training\nThe objective is\nL = a + b (7)\n"
        ]
    )
    reply = "Table 2, Figure 3, Fig. 4, Section 3.2 and Eq. (7) all exist; Table 3 and Eq. (8) do not."
    assert [ref.found for ref in check_quotes(reply, index).references] == [True, True, True, True, True, False, False]


def test_a_quote_across_a_page_break_is_found_on_the_page_where_it_starts(tmp_path: Path) -> None:
    pages = [
        "1 Introduction\nEnsembles of models are studied here. We find that the\nmerged answers beat",
        "every single model on the harder questions, at four times the cost.\n2 Methods\nMore text follows.",
        "3 Results\nNothing to quote on this page.",
    ]
    pdf = text_pdf(tmp_path / "paper.pdf", pages, header="Journal of Ensembles 12 (2026)", page_numbers=True)
    index = paper_index(pdf, tmp_path / "Cache")
    reply = '"We find that the merged answers beat every single model on the harder questions"'
    assert pages_of(check_quotes(reply, index)) == [1]


def test_a_word_hyphenated_at_a_line_end_is_found_whole(tmp_path: Path) -> None:
    pages = ["The gain was statis-\ntically significant on all five bench-\nmarks we ran in this study."]
    index = paper_index(text_pdf(tmp_path / "paper.pdf", pages), tmp_path / "Cache")
    reply = '"The gain was statistically significant on all five benchmarks we ran"'
    assert pages_of(check_quotes(reply, index)) == [1]


def test_a_numeric_citation_left_out_of_a_quote_does_not_matter(tmp_path: Path) -> None:
    index = build_index(["As earlier work showed [3, 7], ensembles of models\nreduce errors [12] on hard questions."])
    reply = '"As earlier work showed, ensembles of models reduce errors on hard questions."'
    assert pages_of(check_quotes(reply, index)) == [1]


def test_ligatures_in_the_pdf_match_plain_letters_in_the_quote(tmp_path: Path) -> None:
    pages = ["Intro.\nThe \ufb01rst \ufb02ow of e\ufb03cient o\ufb00ers was signi\ufb01cant for the \ufb01nal model."]
    pdf = text_pdf(tmp_path / "paper.pdf", pages, unicode_font=True)
    index = paper_index(pdf, tmp_path / "Cache")
    reply = '"The first flow of efficient offers was significant for the final model."'
    assert pages_of(check_quotes(reply, index)) == [1]


def test_the_normaliser_spells_out_ligatures_and_ignores_punctuation_and_accents() -> None:
    assert compact("The \ufb01rst e\ufb03cient \ufb02ow") == compact("the first efficient flow")
    pdf_text = "na\u00efve \u201cmodel\u2019s\u201d \u2014 state-of-the-\nart"
    assert compact(pdf_text) == compact('naive "model\'s" - state of the art')
    assert compact("74 1.9") != compact("741.9") != compact("74 19")


def test_a_scan_gives_the_notice_and_no_checks(tmp_path: Path) -> None:
    index = paper_index(scan_pdf(tmp_path / "scan.pdf"), tmp_path / "Cache")
    report = check_quotes(f'"{ACROSS_LINE}" on p. 9', index)
    assert report.quotes == () and report.references == ()
    assert report.summary() == NO_TEXT_LAYER
    assert stderr_lines(report) == [NO_TEXT_LAYER]


def test_markers_go_after_each_quote_and_each_missing_reference(sample: PaperIndex) -> None:
    reply = f'First "{ACROSS_LINE}". Then "{ACROSS_LINE.replace("74", "47")}", see Table 9 and Table 1.'
    report = check_quotes(reply, sample)
    assert annotate_markdown(reply, report) == (
        f'First "{ACROSS_LINE}" ✓ p. 1. Then "{ACROSS_LINE.replace("74", "47")}" ✗ not in the paper, '
        "see Table 9 ✗ not in the paper and Table 1."
    )
    assert annotate_markdown(reply, report, lambda marker, found: f"*{marker}*").count("*✗ not in the paper*") == 2
    assert report.summary() == "Quotes: 2 checked, 1 found, 1 not in the paper; 1 reference not in the paper (Table 9)"


def test_the_ask_lines_name_the_page_and_the_first_words(sample: PaperIndex) -> None:
    reply = f'"{ACROSS_LINE}" and "{PAGE_TWO}" and "the best model was always the largest one"'
    assert stderr_lines(check_quotes(reply, sample)) == [
        'quote ✓ p. 1: "aggregation with one resynthesis round answered 87 correctly…"',
        'quote ✓ p. 2: "Letting models read each other\'s work improves answers…"',
        'quote ✗ not in the paper: "the best model was always the largest one"',
    ]


def test_control_characters_in_a_quote_never_reach_the_terminal(sample: PaperIndex) -> None:
    reply = '"the \x1b[2J screen is cleared by this fabricated quotation"'
    [line] = stderr_lines(check_quotes(reply, sample))
    assert "\x1b" not in line and line.startswith("quote ✗ not in the paper")


def test_checking_against_a_pdf_gives_a_report_or_the_one_line_that_explains_why_not(
    sample_pdf: Path, tmp_path: Path
) -> None:
    locked = text_pdf(tmp_path / "locked.pdf", ["Secret."], user_password="secret")
    reply = f'"{ACROSS_LINE}", p. 3'
    report = check_reply_against_pdf(reply, sample_pdf, tmp_path / "Cache")
    assert report.as_record() == {
        "notice": None,
        "quotes": [
            {
                "text": ACROSS_LINE,
                "start": 0,
                "end": len(ACROSS_LINE) + 2,
                "page": 1,
                "passage": report.quotes[0].passage and vars(report.quotes[0].passage),
            }
        ],
        "references": [{"kind": "page", "text": "p. 3", "start": len(reply) - 4, "end": len(reply), "found": False}],
    }
    passage = report.quotes[0].passage  # issue 32: where the words are in the page, for a tool to jump to
    assert passage is not None and passage.page == 1
    locked_report = check_reply_against_pdf(reply, locked, tmp_path / "Cache")
    assert locked_report.quotes == () and locked_report.summary().startswith("locked.pdf is encrypted")


async def test_a_scan_is_reported_once_in_one_line_and_the_turns_go_on(workspace, scripted, make_engine, tmp_path):
    from ensemble_tui.core.chat.modes import Mode
    from ensemble_tui.core.turn.events import Notice, ReplyCommitted
    from tests.core.helpers import of_type, run_turn
    from tests.core.pdf_factory import scan_pdf

    scan = scan_pdf(tmp_path / "scan.pdf")
    workspace.select_pdf(scan)
    scripted["Claude"].scripts["proposer"] = [f'It says "{ACROSS_LINE}".', "Again."]
    engine = make_engine()
    first = await run_turn(engine, Mode.CLAUDE, "q1")
    second = await run_turn(engine, Mode.CLAUDE, "q2")
    notices = [n.message for n in of_type(first + second, Notice)]
    assert notices == ["This PDF has no text layer; quotes cannot be checked."]
    assert of_type(first, ReplyCommitted)[0].message.checks is None and of_type(second, ReplyCommitted)


def test_a_turns_texts_are_checked_with_one_look_at_the_paper(
    sample_pdf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks run after a turn's last call, before its reply is stored: each look at the paper
    hashes the PDF and reads its cached text, which a turn's dozen texts used to pay twice each
    (issue 36, bench row 1). The reports are what each text gets checked alone."""
    from ensemble_tui.core.paper import paper_index as index_module
    from ensemble_tui.core.paper import passage as passage_module
    from ensemble_tui.core.paper.pdf_pages import read_page_texts
    from ensemble_tui.core.paper.quote_checks import check_texts

    cache = tmp_path / "Cache"
    texts = {"": f'"{ACROSS_LINE}", p. 3', "ChatGPT": "No quotation here.", "Claude": f'> "{PAGE_TWO}"'}
    alone = {key: check_reply_against_pdf(text, sample_pdf, cache).as_record() for key, text in texts.items()}
    looks: list[Path] = []

    def counted(pdf: Path, cache_dir: Path):  # noqa: ANN202 - the wrapped function's result
        looks.append(pdf)
        return read_page_texts(pdf, cache_dir)

    monkeypatch.setattr(index_module, "read_page_texts", counted)
    monkeypatch.setattr(passage_module, "read_page_texts", counted)
    assert asyncio.run(check_texts(texts, sample_pdf, cache)) == alone
    assert len(looks) <= 2  # the index's and, for the passages of found quotes, the paper's text
