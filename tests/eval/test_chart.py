"""The eval report's cost chart as a reader sees it (issue 35 §9, left over): no label runs through
a point or another label, for the demo's arms and for a crowded set; the chart spans the page's
column; and the graded report (questions with known answers) has the same chart.

The checks read the drawn SVG back: every label's box (its text's estimated extent at its
position), every point's marker, every leader line."""

from __future__ import annotations

import math
import random
import re

import pytest

from ensemble_tui.eval.chart import FONT, Point, cost_chart, label_box
from ensemble_tui.eval.label_place import Box, crosses, text_width
from ensemble_tui.eval.model import EvalPlan, EvalQuestion, GradeVerdict
from ensemble_tui.eval.report import STYLE, render
from tests.eval.records import answer

# The demo eval's arms as `eval --demo --from-history 3 --arms chatgpt,claude,gemini,all,council,auto`
# reports them: three single models within 0.3 cents of each other, auto beside them at 0%, and
# the label "ChatGPT alone" used to run through Gemini's dot.
DEMO = [
    Point("ChatGPT alone", 0.016, 0.0, 0.0, 0.56),
    Point("Claude alone (reference)", 0.018, 0.5, reference=True),
    Point("Gemini alone", 0.019, 0.0, 0.0, 0.56),
    Point("all", 0.144, 1.0, 0.44, 1.0),
    Point("council", 0.123, 1.0, 0.44, 1.0),
    Point("auto", 0.038, 0.0, 0.0, 0.56),
]
# Twelve arms in a corner of the plot: providers the user added, self-consistency, every ensemble.
DENSE = [
    Point("ChatGPT alone", 0.010, 0.40, 0.20, 0.62),
    Point("Claude alone (reference)", 0.012, 0.5, reference=True),
    Point("Gemini alone", 0.011, 0.45, 0.25, 0.66),
    Point("Mistral Large alone", 0.009, 0.42, 0.22, 0.64),
    Point("DeepSeek alone", 0.008, 0.38, 0.19, 0.60),
    Point("Llama 3.3 70B (local) alone", 0.0, 0.35, 0.16, 0.58),
    Point("self-3", 0.030, 0.52, 0.31, 0.72),
    Point("all", 0.045, 0.60, 0.39, 0.78),
    Point("council", 0.048, 0.62, 0.41, 0.80),
    Point("vote", 0.044, 0.58, 0.37, 0.77),
    Point("debate", 0.050, 0.61, 0.40, 0.79),
    Point("auto", 0.020, 0.55, 0.34, 0.74),
]


def drawn(chart: str) -> tuple[dict[str, Box], list[tuple[float, float, float]], list[tuple[float, ...]], Box]:
    """The labels' boxes by text, the markers (x, y, half size), the leader lines and the viewBox."""
    labels = {
        text: label_box(float(x), float(y), text)
        for x, y, text in re.findall(r'<text x="([\d.]+)" y="([\d.]+)" class="label">([^<]+)</text>', chart)
    }
    markers = [
        (float(x), float(y), float(r))
        for x, y, r in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="([\d.]+)"', chart)
    ]
    markers += [  # the reference: a 10 x 10 square turned 45°
        (float(x) + 5, float(y) + 5, 5 * math.sqrt(2))
        for x, y in re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="10" height="10" class="reference"', chart)
    ]
    leaders = [
        tuple(float(v) for v in line)
        for line in re.findall(r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" class="leader"', chart)
    ]
    width, height = (float(v) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', chart).groups())  # type: ignore[union-attr]
    return labels, markers, leaders, Box(0, 0, width, height)


def assert_readable(chart: str, points: list[Point]) -> None:
    labels, markers, leaders, view = drawn(chart)
    key = dict(re.findall(r'class="key">(\d+): ([^<]+)</text>', chart))  # numbers for labels with no room
    assert sorted(key.get(text, text) for text in labels) == sorted(point.label for point in points)
    boxes = list(labels.items())
    ticks = [  # the cost axis's ticks, centred on their x, at their baseline
        Box(
            float(x) - text_width(tick, FONT) / 2,
            float(y) - FONT * 0.8,
            float(x) + text_width(tick, FONT) / 2,
            float(y),
        )
        for x, y, tick in re.findall(r'<text x="([\d.]+)" y="([\d.]+)" text-anchor="middle">(\$[\d.]+)</text>', chart)
    ]
    assert ticks
    for text, box in boxes:
        assert box.inside(view), text
        assert not any(box.overlaps(tick) for tick in ticks), f"{text} covers a tick"
        for x, y, r in markers:
            assert not box.overlaps(Box(x - r, y - r, x + r, y + r)), f"{text} covers the point at {x}, {y}"
        for other, other_box in boxes:
            assert other == text or not box.overlaps(other_box), f"{text} overlaps {other}"
        for leader in leaders:  # a leader ends on its own label and crosses no other
            end = leader[2], leader[3]
            if math.dist(box.nearest(*end), end) > 0.2:
                assert not crosses(leader, box), f"a leader crosses {text}"
    for leader in leaders:
        start = leader[0], leader[1]
        assert any(math.hypot(start[0] - x, start[1] - y) <= r + 2 for x, y, r in markers)


def chart_of(points: list[Point]) -> str:
    return cost_chart(points, "Cost against win rate", "win rate against the reference", even=0.5)


def test_the_demo_chart_s_labels_clear_every_point_and_each_other() -> None:
    assert_readable(chart_of(DEMO), DEMO)


def test_a_crowded_chart_s_labels_clear_every_point_and_each_other() -> None:
    assert_readable(chart_of(DENSE), DENSE)


@pytest.mark.parametrize("seed", range(12))
def test_labels_stay_clear_for_any_handful_of_arms(seed: int) -> None:
    chance = random.Random(seed)
    names = ["ChatGPT alone", "Claude alone", "Gemini alone", "all", "council", "vote", "debate", "auto", "self-3"]
    points = []
    for name in chance.sample(names, chance.randint(3, len(names))):
        score = chance.choice([0.0, 0.5, 1.0, chance.random()])
        points.append(
            Point(
                name,
                chance.choice([0.01, 0.012, chance.random() / 10]),
                score,
                max(0, score - 0.3),
                min(1, score + 0.3),
            )
        )
    assert_readable(chart_of(points), points)


def test_a_chart_too_crowded_for_its_names_numbers_the_rest_and_names_them_in_a_key() -> None:
    points = [
        Point(f"arm number {n} with a long name", 0.01 + 0.0003 * n, 0.5 + 0.01 * (n % 5), 0.3, 0.7) for n in range(30)
    ]
    chart = chart_of(points)
    assert 'class="key">1: arm number' in chart
    assert_readable(chart, points)


def test_the_chart_spans_the_page_s_column_and_scales_with_it() -> None:
    chart = chart_of(DEMO)
    assert re.search(r'<svg class="chart" viewBox="0 0 [\d.]+ [\d.]+" width="100%"', chart)
    assert "max-width" not in chart  # nothing holds it narrower than the column
    _, _, _, view = drawn(chart)
    frame = re.search(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)" height="[\d.]+" class="frame"', chart)
    assert (
        frame is not None and float(frame.group(2)) >= 0.85 * view.x1
    )  # the plot fills it (it had 190 of 960 for labels)
    css = re.search(r"\.chart \{([^}]*)\}", STYLE)
    assert css is not None and "width: 100%" in css.group(1) and "height: auto" in css.group(1)


def test_the_graded_report_has_the_chart_of_cost_against_accuracy() -> None:
    questions = tuple(EvalQuestion(id=f"q{n}", text=f"Q{n}?", answer="Five.") for n in range(4))
    plan = EvalPlan(arms=("chatgpt", "claude", "all"), judges=("Gemini",), questions=questions)
    answers, grades = [], []
    for question in questions:
        for arm, cost, grade in (("chatgpt", 0.01, "incorrect"), ("claude", 0.02, "correct"), ("all", 0.08, "correct")):
            answers.append(answer(question.id, arm, cost_usd=cost))
            grades.append(GradeVerdict(question_id=question.id, arm=arm, judge="Gemini", grade=grade))
    grades[-1] = grades[-1].model_copy(update={"grade": "incorrect"})  # all: 3 of 4
    page = render(plan, answers, [], "html", grades)
    assert page.index("Accuracy (95% interval)") < page.index("<svg")  # under the accuracy table
    chart = page[page.index("<svg") : page.index("</svg>") + 6]
    assert "accuracy against the known answers" in chart and "cost per graded question" in chart
    points = [Point("ChatGPT alone", 0.01, 0.0), Point("Claude alone", 0.02, 1.0), Point("all", 0.08, 0.75)]
    assert_readable(chart, points)
    dots = sorted(re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', chart), key=lambda dot: float(dot[0]))
    (x1, y1), (x2, y2), (x3, y3) = ((float(x), float(y)) for x, y in dots)
    assert x1 < x2 < x3  # $0.01 < $0.02 < $0.08 a graded question
    assert y2 < y3 < y1  # accuracy 100% > 75% > 0% (SVG's y grows downwards)
    assert 'class="even"' not in chart  # no "even match" line: accuracy has none
