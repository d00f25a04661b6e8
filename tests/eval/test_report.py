"""The report: the recommendation in plain words (with the small-sample rule), and the same
numbers in Markdown, JSON and one HTML file that fetches nothing."""

from __future__ import annotations

import json
import re

import pytest

from ensemble_tui.eval.model import ArmAnswer, EvalPlan, EvalQuestion, GradeVerdict, Verdict
from ensemble_tui.eval.recommend import accuracy_headline, recommend
from ensemble_tui.eval.report import render
from ensemble_tui.eval.stats import summarize
from tests.eval.records import answer, both_orders, plan

ARMS = ("chatgpt", "claude", "council")


def council_eval(results: list[str], judges: tuple[str, ...] = ("Mistral",)) -> tuple[list[ArmAnswer], list[Verdict]]:
    """Claude beats ChatGPT on every question, so Claude alone is the reference; council gets
    `results` against it, for 4.1 times Claude's cost."""
    answers: list[ArmAnswer] = []
    verdicts: list[Verdict] = []
    for index, result in enumerate(results):
        question = f"q{index}"
        answers += [
            answer(question, "chatgpt", cost_usd=0.005, calls=1, latency_s=3.0),
            answer(question, "claude", cost_usd=0.010, calls=1, latency_s=4.0, quotes_checked=2, quotes_found=2),
            answer(
                question,
                "council",
                writer="Claude",
                contributors=("ChatGPT", "Claude", "Gemini"),
                cost_usd=0.041,
                calls=7,
                latency_s=20.0,
                quotes_checked=4,
                quotes_found=3,
            ),
        ]
        verdicts += both_orders(question, "claude", "chatgpt", judges[0], "win")
        verdicts += both_orders(question, "council", "claude", judges[0], result)
    return answers, verdicts


SIX_TWO_TWO = ["win"] * 6 + ["tie"] * 2 + ["loss"] * 2
# Everything the page is made of: no script, link, image, frame or object can load anything.
ALLOWED_TAGS = {
    "!doctype", "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "ul", "li", "table", "thead",
    "tbody", "tr", "th", "td", "svg", "rect", "line", "text", "circle", "details", "summary",
}  # fmt: skip


def test_the_recommendation_reads_as_the_brief_says_and_applies_the_small_sample_rule():
    answers, verdicts = council_eval(SIX_TWO_TWO)
    advice = recommend(summarize(plan(ARMS, ("Mistral",), 10), answers, verdicts))
    council = next(line for line in advice.findings if line.startswith("On your 10 questions, council"))
    assert council.startswith(
        "On your 10 questions, council won 6, tied 2, lost 2 against Claude alone, for 4.1× the cost"
    )
    # (6 + 2/2) / 10 = 70%, Wilson [40%, 89%] holds ½: too few; z²/(4·0.2²) = 24.01, so 25
    assert "a win rate of 70% (95% interval 40%–89%)" in council
    assert "too few questions to tell" in council and "about 25 questions" in council
    assert advice.headline.startswith("Stay with Claude alone for now")


def test_one_question_is_counted_in_the_singular():
    """ "On your 1 questions" and "1 questions · 3 arms" were printed after a one-question eval."""
    answers, verdicts = council_eval(["win"])
    one = plan(ARMS, ("Mistral",), 1)
    advice = recommend(summarize(one, answers, verdicts))
    assert any(line.startswith("On your 1 question, council won 1") for line in advice.findings)
    assert "clearly on your 1 question," in advice.headline
    assert "1 question · 3 arms · judges: Mistral" in render(one, answers, verdicts, "md")


def test_a_clear_win_is_recommended():
    answers, verdicts = council_eval(["win"] * 9 + ["tie"])
    advice = recommend(summarize(plan(ARMS, ("Mistral",), 10), answers, verdicts))
    assert advice.headline == "Use council: it beat Claude alone clearly on your questions."
    assert "It is better than Claude alone" in advice.findings[0]


def test_an_arm_every_judge_wrote_is_reported_as_not_judged():
    answers, verdicts = council_eval(SIX_TWO_TWO, judges=("Claude",))
    verdicts = [v for v in verdicts if "council" not in (v.first, v.second)]  # what judging leaves for it
    report = render(plan(ARMS, ("Claude",), 10), answers, verdicts, "md")
    assert "council was not judged against Claude alone" in report
    assert "every judge (Claude) wrote it or Claude alone" in report
    assert "add a judge from another provider with --judges" in report
    assert "**Stay with Claude alone: every arm judged against it lost. Not judged: council.**" in report


def test_markdown_puts_the_recommendation_before_the_table():
    answers, verdicts = council_eval(SIX_TWO_TWO)
    report = render(plan(ARMS, ("Mistral",), 10), answers, verdicts, "md")
    assert report.index("Stay with Claude alone") < report.index("| Arm | Won | Tied | Lost |")
    row = next(line for line in report.splitlines() if line.startswith("| council"))
    assert [cell.strip() for cell in row.strip("|").split("|")] == [
        "council",
        "6",
        "2",
        "2",
        "70% (40%–89%)",
        "$0.041 (4.1×)",
        "7.0",
        "20.0 s",
        "75% (30/40)",
    ]
    assert "A verdict that changes when the order is swapped counts as a tie." in report


def test_json_carries_the_numbers_and_every_verdict():
    answers, verdicts = council_eval(SIX_TWO_TWO)
    document = json.loads(render(plan(ARMS, ("Mistral",), 10), answers, verdicts, "json"))
    assert document["reference"] == "claude"
    council = next(arm for arm in document["arms"] if arm["arm"] == "council")
    assert (council["wins"], council["ties"], council["losses"]) == (6, 2, 2)
    assert council["win_rate"] == pytest.approx(0.7)
    assert council["interval_95"] == pytest.approx([0.3968, 0.8922], abs=1e-3)
    assert council["questions_to_tell"] == 25
    assert len(document["verdicts"]) == len(verdicts)
    assert document["cost_usd"]["answers"] == pytest.approx(10 * (0.005 + 0.010 + 0.041))


def test_html_is_one_file_that_fetches_nothing_and_shows_model_text_inert():
    answers, verdicts = council_eval(SIX_TWO_TWO)
    verdicts[0] = verdicts[0].model_copy(update={"reason": '<img src=x onerror="alert(1)"> <script>steal()</script>'})
    page = render(plan(ARMS, ("Mistral",), 10), answers, verdicts, "html")
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    markup = " ".join(re.findall(r"<[^>]*>", page)).lower()  # every real tag (escaped text has no "<")
    style = page[page.index("<style>") : page.index("</style>")].lower()
    assert {tag.split()[0].strip("</>") for tag in markup.split("<") if tag.strip()} <= ALLOWED_TAGS
    for fetcher in ("src=", "href=", "url(", "@import", "http:", "https:", "//"):
        assert fetcher not in markup and fetcher not in style, fetcher
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page  # the judge's reason, escaped
    # the recommendation first, then the table, then the chart with one labelled point per arm
    assert page.index("Stay with Claude alone") < page.index("<table") < page.index("<svg")
    chart = page[page.index("<svg") : page.index("</svg>")]
    labels = re.findall(r'class="label">([^<]+)</text>', chart)
    assert labels == ["ChatGPT alone", "Claude alone (reference)", "council"]
    assert chart.count("<circle") == 2  # the reference is drawn apart, at ½


def test_the_chart_places_points_by_cost_and_win_rate():
    answers, verdicts = council_eval(SIX_TWO_TWO)
    chart = render(plan(ARMS, ("Mistral",), 10), answers, verdicts, "html").split("<svg", 1)[1]
    points = {
        label: (float(x), float(y))
        for x, y, label in re.findall(r'<text x="([\d.]+)" y="([\d.]+)" class="label">([^<]+)</text>', chart)
    }
    council, chatgpt, claude = points["council"], points["ChatGPT alone"], points["Claude alone (reference)"]
    assert chatgpt[0] < claude[0] < council[0]  # cost: $0.005 < $0.010 < $0.041
    assert council[1] < claude[1] < chatgpt[1]  # win rate 70% > ½ > 0% (SVG's y grows downwards)


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="md, json or html"):
        render(plan(ARMS, ("Mistral",), 1), [], [], "pdf")  # type: ignore[arg-type]


def test_the_chart_fills_the_page_its_labels_never_overlap_and_its_ticks_share_one_precision():
    """Issue 35 §9: `council` and `all` printed as "counciall", the ticks mixed $0.000, $0.054 and
    $0.11, and the chart was 400 px wide on a 1,200 px page."""
    from ensemble_tui.eval.chart import Point, cost_chart, label_box

    points = [
        Point("claude", 0.020, 0.5, reference=True),
        Point("council", 0.190, 0.62, 0.45, 0.78),
        Point("all", 0.200, 0.63, 0.46, 0.79),
        Point("chatgpt", 0.020, 0.51, 0.35, 0.66),
    ]
    chart = cost_chart(points, "Cost against win rate", "win rate against the reference", even=0.5)
    assert 'width="100%"' in chart
    labels = [
        (float(x), float(y), text)
        for x, y, text in re.findall(r'<text x="([\d.]+)" y="([\d.]+)" class="label">([^<]+)</text>', chart)
    ]
    assert sorted(text for _, _, text in labels) == ["all", "chatgpt", "claude", "council"]
    boxes = [label_box(x, y, text) for x, y, text in labels]
    for index, box in enumerate(boxes):
        for other in boxes[index + 1 :]:
            assert not box.overlaps(other)
    ticks = re.findall(r'text-anchor="middle">\$([\d.]+)</text>', chart)
    assert len(ticks) >= 3 and len({len(tick.split(".")[-1]) for tick in ticks}) == 1
    assert ticks[0] == "0.00" and float(ticks[-1]) >= 0.2


def graded_eval(results: dict[str, list[str]], costs: dict[str, float]) -> tuple[EvalPlan, list, list]:
    """Every question has a known answer; `results[arm]` are its grades, question by question."""
    count = len(next(iter(results.values())))
    questions = tuple(EvalQuestion(id=f"q{n}", text=f"Q{n}?", answer="Five.") for n in range(count))
    graded = EvalPlan(arms=tuple(results), judges=("Gemini",), questions=questions)
    answers, grades = [], []
    for arm, outcomes in results.items():
        for question, grade in zip(questions, outcomes, strict=True):
            answers.append(answer(question.id, arm, cost_usd=costs[arm]))
            grades.append(GradeVerdict(question_id=question.id, arm=arm, judge="Gemini", grade=grade))
    return graded, answers, grades


def test_an_eval_of_known_answers_says_in_words_which_arm_to_use():
    """Its report had tables and no verdict: "Is the ensemble worth it?" went unanswered."""
    level, answers, grades = graded_eval(
        {"claude": ["correct"] * 2, "all": ["correct"] * 2}, {"claude": 0.02, "all": 0.1}
    )
    headline = accuracy_headline(summarize(level, answers, [], grades))
    assert headline == (
        "No arm was clearly more accurate on your 2 questions with a known answer (Claude alone 2 of 2, all 2 of 2); "
        "Claude alone costs least per correct answer ($0.020)."
    )
    page = render(level, answers, [], "md", grades)
    assert f"**{headline}**" in page and "\n\n\n" not in page
    assert json.loads(render(level, answers, [], "json", grades))["accuracy_headline"] == headline

    ahead, answers, grades = graded_eval(
        {"chatgpt": ["incorrect"] * 12, "all": ["correct"] * 12}, {"chatgpt": 0.01, "all": 0.1}
    )
    assert accuracy_headline(summarize(ahead, answers, [], grades)) == (
        "all was clearly the most accurate on your 12 questions with a known answer: 12 of 12 correct."
    )
    assert accuracy_headline(summarize(plan(ARMS, ("Mistral",), 1), *council_eval(["win"]))) is None  # none graded
