"""The eval's report in Markdown, JSON or one self-contained HTML file.

Written for a researcher with a minute: the recommendation first, then the table against the
best single model, then the rules, what sharing saved and what the eval cost. The HTML has
inline CSS and an inline SVG chart, and no script, link or address: it fetches nothing. Model
text (the judges' reasons, failure lines) is escaped wherever it appears.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from html import escape
from typing import Literal

from ensemble_tui.core.text.counts import plural
from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.eval.chart import Point, cost_chart
from ensemble_tui.eval.model import ArmAnswer, EvalPlan, GradeVerdict, Verdict
from ensemble_tui.eval.recommend import (
    Recommendation,
    accuracy_headline,
    arm_name,
    cost_ratio,
    money,
    percent,
    recommend,
)
from ensemble_tui.eval.stats import ArmRow, EvalSummary, GradeRow, summarize

Format = Literal["md", "json", "html"]
FORMATS: tuple[Format, ...] = ("md", "json", "html")
TITLE = "Is the ensemble worth it?"
RULES = (
    "Each pair of answers was judged twice, in both orders, by judges that saw only “Answer 1” and “Answer 2”.",
    "A verdict that changes when the order is swapped counts as a tie.",
    "No judge graded a pair containing an answer its own model wrote (an ensemble's answer is its "
    "aggregator's, its chairman's, or the winner's of a vote or a debate).",
    "Each question counts once: its judges' outcomes are averaged (win 1, tie ½, loss 0).",
    "The win rate counts a tie as half a win; the interval is Wilson's, at 95%.",
    "Cost and calls per question are each arm's as if run alone, shared proposals included.",
)


GRADE_RULES = (
    "A question with a known answer was graded against it, not judged in pairs: each arm's answer, read blind, "
    "by every judge that did not write it: correct, partly correct, incorrect, or declined (“the paper does not say”).",
    "An answer's grade is its judges' majority; a tie goes to the less favourable grade.",
    "Accuracy is correct ÷ graded, with Wilson's 95% interval; precision is correct ÷ answered (declines left out).",
)


@dataclass(frozen=True)
class Totals:
    """What the eval cost, as the command measured it once: the report and stderr show these
    very figures, in the same words."""

    run_usd: float  # spent by this run
    eval_usd: float  # spent by this eval in all (every run of it on these questions)
    reused: int = 0  # stored answers reused, their arm configured the same
    asked: int = 0  # answers asked by this run
    estimate_usd: float | None = None  # what was estimated before this run
    basis: str = ""  # the estimate's basis
    simulated: bool = False


def figure(value: float, simulated: bool) -> str:
    return money(value) + (" (simulated)" if simulated else "")


def total_lines(totals: Totals) -> list[str]:
    """The totals in words: the closing note of every format, and the command's last lines on stderr."""
    lines = [
        f"Spent by this run: {figure(totals.run_usd, totals.simulated)}.",
        f"Spent by this eval in all (every run on these questions): {figure(totals.eval_usd, totals.simulated)}.",
    ]
    if totals.estimate_usd is not None:
        lines.append(
            f"Estimated before this run: {figure(totals.estimate_usd, totals.simulated)} ({totals.basis}); "
            f"spent by this run: {figure(totals.run_usd, totals.simulated)}."
        )
    lines.append(f"Answers reused from earlier runs: {totals.reused}; asked by this run: {totals.asked}.")
    return lines


def render(
    plan: EvalPlan,
    answers: Iterable[ArmAnswer],
    verdicts: Iterable[Verdict],
    fmt: Format,
    grades: Iterable[GradeVerdict] = (),
    totals: Totals | None = None,
) -> str:
    verdicts = list(verdicts)
    summary = summarize(plan, answers, verdicts, grades)
    advice = recommend(summary)
    if fmt == "md":
        return markdown(plan, summary, advice, totals)
    if fmt == "json":
        return as_json(plan, summary, advice, verdicts, totals)
    if fmt == "html":
        return as_html(plan, summary, advice, verdicts, totals)
    raise ValueError(f"unknown report format {fmt!r}: choose md, json or html")


# ----- the table's cells, shared by the three formats ----------------------------------------


def cells(summary: EvalSummary, row: ArmRow) -> dict[str, str]:
    """One table row as text: what a reader compares at a glance."""
    best = summary.row(summary.best) if summary.best else None
    tally = row.tally
    if row.reference:
        outcome = {"won": "—", "tied": "—", "lost": "—", "rate": "reference"}
    elif tally.rate is not None and tally.interval is not None:
        low, high = tally.interval
        outcome = {
            "won": str(tally.wins),
            "tied": str(tally.ties),
            "lost": str(tally.losses),
            "rate": f"{percent(tally.rate)} ({percent(low)}–{percent(high)})",
        }
    else:
        outcome = {"won": "—", "tied": "—", "lost": "—", "rate": "not judged"}
    ratio = cost_ratio(row, best) if best is not None else None
    cost = money(row.cost_per_question) + (f" ({ratio:.1f}×)" if ratio is not None and not row.reference else "")
    quotes = (
        f"{percent(row.quote_rate)} ({row.quotes_found}/{row.quotes_checked})" if row.quote_rate is not None else "—"
    )
    return {
        "arm": arm_name(summary, row.arm) + (f" ({row.failed} failed)" if row.failed else ""),
        **outcome,
        "cost": cost,
        "calls": f"{row.calls_per_question:.1f}" if row.calls_per_question is not None else "—",
        "latency": f"{row.median_latency_s:.1f} s" if row.median_latency_s is not None else "—",
        "quotes": quotes,
    }


HEADERS = {
    "arm": "Arm",
    "won": "Won",
    "tied": "Tied",
    "lost": "Lost",
    "rate": "Win rate (95% interval)",
    "cost": "$ / question",
    "calls": "Calls / question",
    "latency": "Median latency",
    "quotes": "Verified quotes",
}


def sharing_lines(summary: EvalSummary) -> list[str]:
    lines = []
    for item in summary.sharing:
        dollars = f" and {money(item.dollars_saved)}" if item.dollars_saved else ""
        lines.append(
            f"{item.arm} reused the proposals of {item.shared_from} on {plural(item.questions, 'question')}: "
            f"{plural(item.calls_saved, 'call')}{dollars} saved."
        )
    return lines


def spending_line(summary: EvalSummary) -> str:
    """What the answers and verdicts in this report cost when they were made (some by earlier runs)."""
    lost = len(summary.lost_verdicts)
    line = f"The answers in this report cost {money(summary.answers_cost)}"
    if summary.verdicts or summary.pairwise_questions:
        line += f"; their {summary.verdicts} verdicts {money(summary.judging_cost)}"
    line += f", of which {lost} were lost (unreadable twice or a failed call)" if lost else ""
    if summary.grade_count:
        line += f"; their {summary.grade_count} grades {money(summary.grading_cost)}"
        line += f", of which {summary.lost_grades} were lost" if summary.lost_grades else ""
    return line + "."


def bias_lines(summary: EvalSummary) -> list[str]:
    """How noisy the judges were: how often they chose the answer shown first, and how many verdicts flipped."""
    bias = summary.bias
    lines = []
    if bias.first_rate is not None:
        lines.append(
            f"First-position rate: the judges chose the answer shown first in {percent(bias.first_rate)} "
            f"of their {bias.decided} decided verdicts (50% is no bias)."
        )
    if bias.flip_rate is not None:
        lines.append(
            f"Flipped verdicts: {bias.flipped} of {bias.pairs} pairs ({percent(bias.flip_rate)}) changed "
            "with the order, and counted as ties."
        )
    return lines


def rules(summary: EvalSummary) -> list[str]:
    listed = list(RULES) if summary.pairwise_questions else []
    return listed + (list(GRADE_RULES) if summary.graded_questions else [])


GRADE_HEADERS = {
    "arm": "Arm",
    "correct": "Correct",
    "partly": "Partly correct",
    "incorrect": "Incorrect",
    "declined": "Declined",
    "accuracy": "Accuracy (95% interval)",
    "precision": "Precision",
    "per_correct": "$ / correct answer",
}


GRADED_COST = "cost per graded question"


def grade_cells(summary: EvalSummary, row: GradeRow) -> dict[str, str]:
    interval = row.interval
    accuracy = "not graded"
    if row.accuracy is not None and interval is not None:
        accuracy = f"{percent(row.accuracy)} ({percent(interval[0])}–{percent(interval[1])})"
    counts = ((row.failed, "failed"), (row.ungraded, "ungraded"), (row.pending, "not graded yet"))
    notes = [f"{count} {what}" for count, what in counts if count]
    return {
        "arm": arm_name(summary, row.arm) + (f" ({', '.join(notes)})" if notes else ""),
        "correct": str(row.correct),
        "partly": str(row.partly),
        "incorrect": str(row.incorrect),
        "declined": str(row.declined),
        "accuracy": accuracy,
        "precision": percent(row.precision) if row.precision is not None else "—",
        "per_correct": money(row.per_correct),
    }


def accuracy_title(summary: EvalSummary) -> str:
    return f"Accuracy against the known answers ({plural(summary.graded_questions, 'question')})"


def intro(plan: EvalPlan, summary: EvalSummary) -> str:
    judges = ", ".join(plan.judges) or "none"
    against = arm_name(summary, summary.best) if summary.best else "none"
    kinds = f" ({summary.graded_questions} with a known answer)" if summary.graded_questions else ""
    line = f"{plural(summary.questions, 'question')}{kinds} · {plural(len(summary.arms), 'arm')} · judges: {judges}"
    return line + (f" · reference: {against}" if summary.pairwise_questions else "")


# ----- Markdown ----------------------------------------------------------------------------


def md_text(text: str) -> str:
    """Inert in Markdown and in a terminal: no control characters, HTML or table breaks."""
    cleaned = strip_control(text).replace("\n", " ")
    return escape(cleaned, quote=False).replace("|", "\\|")


def markdown(plan: EvalPlan, summary: EvalSummary, advice: Recommendation, totals: Totals | None = None) -> str:
    lines = [f"# {TITLE}", "", md_text(intro(plan, summary)), ""]
    if summary.pairwise_questions:
        lines += [f"**{md_text(advice.headline)}**", ""]
        lines += [f"- {md_text(item)}" for item in advice.findings]
    if summary.grades:
        lines += ([""] if lines[-1] else []) + [f"## {md_text(accuracy_title(summary))}", ""]
        if (headline := accuracy_headline(summary)) is not None:
            lines += [f"**{md_text(headline)}**", ""]
        lines.append("| " + " | ".join(GRADE_HEADERS.values()) + " |")
        lines.append("|" + "|".join("---" for _ in GRADE_HEADERS) + "|")
        for grade_row in summary.grades:
            values = grade_cells(summary, grade_row)
            lines.append("| " + " | ".join(md_text(values[key]) for key in GRADE_HEADERS) + " |")
    if summary.best:
        lines += ["", f"## Against {md_text(arm_name(summary, summary.best))}", ""]
        lines.append("| " + " | ".join(HEADERS.values()) + " |")
        lines.append("|" + "|".join("---" for _ in HEADERS) + "|")
        for row in summary.rows:
            values = cells(summary, row)
            lines.append("| " + " | ".join(md_text(values[key]) for key in HEADERS) + " |")
    lines += ["", "## How it was judged", ""] + [f"- {rule}" for rule in rules(summary)]
    lines += [f"- {md_text(line)}" for line in bias_lines(summary)]
    shared = sharing_lines(summary)
    if shared:
        lines += ["", "## Shared proposals", ""] + [f"- {md_text(line)}" for line in shared]
    lines += ["", "## Cost", ""]
    lines += [f"- {md_text(line)}" for line in (total_lines(totals) if totals else [])]
    lines += [f"- {md_text(spending_line(summary))}"]
    return "\n".join(lines) + "\n"


# ----- JSON --------------------------------------------------------------------------------


def as_json(
    plan: EvalPlan, summary: EvalSummary, advice: Recommendation, verdicts: list[Verdict], totals: Totals | None = None
) -> str:
    arms = []
    for row in summary.rows:
        interval = row.tally.interval
        arms.append(
            {
                "arm": row.arm,
                "reference": row.reference,
                "answered": row.answered,
                "failed": row.failed,
                "wins": row.tally.wins,
                "ties": row.tally.ties,
                "losses": row.tally.losses,
                "win_rate": row.tally.rate,
                "interval_95": list(interval) if interval is not None and not row.reference else None,
                "questions_to_tell": row.to_tell,
                "cost_per_question_usd": row.cost_per_question,
                "calls_per_question": row.calls_per_question,
                "median_latency_s": row.median_latency_s,
                "quotes_checked": row.quotes_checked,
                "quotes_found": row.quotes_found,
                "verified_quote_rate": row.quote_rate,
                "not_judged": {"no_judge_free_of_it": row.excluded, "verdicts_lost": row.lost},
            }
        )
    document = {
        "title": TITLE,
        "questions": summary.questions,
        "judges": list(plan.judges),
        "reference": summary.best,
        "recommendation": (  # pairwise judging's: none where every question had a known answer
            {"headline": advice.headline, "findings": list(advice.findings)} if summary.pairwise_questions else None
        ),
        "accuracy_headline": accuracy_headline(summary),  # the known answers' (None: none graded)
        "rules": rules(summary),
        "position_bias": {
            "decided_verdicts": summary.bias.decided,
            "first_position_rate": summary.bias.first_rate,
            "pairs_in_both_orders": summary.bias.pairs,
            "flipped_share": summary.bias.flip_rate,
            "lines": bias_lines(summary),
        },
        "arms": arms,
        "accuracy": [
            {
                "arm": row.arm,
                "correct": row.correct,
                "partly_correct": row.partly,
                "incorrect": row.incorrect,
                "declined": row.declined,
                "graded": row.graded,
                "ungraded": row.ungraded,
                "failed": row.failed,
                "not_graded_yet": row.pending,
                "accuracy": row.accuracy,
                "interval_95": list(row.interval) if row.interval is not None else None,
                "precision": row.precision,
                "usd_per_correct_answer": row.per_correct,
            }
            for row in summary.grades
        ],
        "sharing": [asdict(item) for item in summary.sharing],
        "cost_usd": {
            "answers": summary.answers_cost,
            "judging": summary.judging_cost,
            "grading": summary.grading_cost,
            "of_this_report": summary.total_cost,
        },
        "spending": _spending_json(totals),
        "verdicts": [verdict.model_dump(mode="json") for verdict in verdicts],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _spending_json(totals: Totals | None) -> dict[str, object] | None:
    if totals is None:
        return None
    return {
        "spent_by_this_run_usd": totals.run_usd,
        "spent_by_this_eval_in_all_usd": totals.eval_usd,
        "estimated_before_this_run_usd": totals.estimate_usd,
        "estimate_basis": totals.basis,
        "answers_reused": totals.reused,
        "answers_asked": totals.asked,
        "simulated": totals.simulated,
        "lines": total_lines(totals),
    }


# ----- HTML --------------------------------------------------------------------------------

STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.5rem; margin-bottom: 0.2rem; }
.intro { color: #555; margin-top: 0; }
.headline { font-size: 1.15rem; font-weight: 600; background: #eef5ee; border-left: 4px solid #3a7d44;
  padding: 0.6rem 0.9rem; }
table { border-collapse: collapse; margin: 1rem 0; font-variant-numeric: tabular-nums; }
th, td { padding: 0.3rem 0.6rem; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
tr.reference td { background: #f4f4f4; }
.chart { display: block; width: 100%; height: auto; margin: 1rem 0; }
.chart text { font-family: system-ui, sans-serif; fill: #333; }  /* its size is the chart's own */
.chart .frame { fill: none; stroke: #999; }
.chart .leader { stroke: #555; }
.chart .grid { stroke: #eee; }
.chart .even { stroke: #888; stroke-dasharray: 4 3; }
.chart .bar { stroke: #3a5f9e; stroke-width: 1.5; }
.chart .point { fill: #3a5f9e; }
.chart .reference { fill: #c0392b; }
.chart .label { font-weight: 600; paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
details { margin: 1rem 0; }
.small { color: #555; font-size: 0.9rem; }
"""


def _points(summary: EvalSummary) -> list[Point]:
    """The pairwise chart's points: each judged arm's win rate against the reference, and the reference at ½."""
    points = []
    for row in summary.rows:
        if row.cost_per_question is None:
            continue
        name = arm_name(summary, row.arm)
        if row.reference:
            points.append(Point(f"{name} (reference)", row.cost_per_question, 0.5, reference=True))
        elif row.tally.rate is not None and row.tally.interval is not None:
            low, high = row.tally.interval
            points.append(Point(name, row.cost_per_question, row.tally.rate, low, high))
    return points


def _graded_points(summary: EvalSummary) -> list[Point]:
    """The graded chart's points: each graded arm's accuracy against its cost per graded question."""
    points = []
    for row in summary.grades:
        if row.accuracy is not None and row.interval is not None and row.cost_per_question is not None:
            low, high = row.interval
            points.append(Point(arm_name(summary, row.arm), row.cost_per_question, row.accuracy, low, high))
    return points


def _verdict_items(summary: EvalSummary, verdicts: list[Verdict]) -> list[str]:
    items = []
    for verdict in verdicts:
        first, second = arm_name(summary, verdict.first), arm_name(summary, verdict.second)
        if verdict.problem is not None:
            said = f"no verdict: {verdict.problem}"
        else:
            winner = {"first": first, "second": second, "tie": "tie"}[verdict.winner]
            said = f"{winner} — {verdict.reason}"
        items.append(
            f"<li>{escape(verdict.question_id)}: {escape(first)} shown first, {escape(second)} second; "
            f"{escape(verdict.judge)} judged: {escape(strip_control(said))}</li>"
        )
    return items


def as_html(
    plan: EvalPlan, summary: EvalSummary, advice: Recommendation, verdicts: list[Verdict], totals: Totals | None = None
) -> str:
    body = [f"<h1>{escape(TITLE)}</h1>", f'<p class="intro">{escape(intro(plan, summary))}</p>']
    if summary.pairwise_questions:
        body.append(f'<p class="headline">{escape(advice.headline)}</p>')
        body.append("<ul>" + "".join(f"<li>{escape(item)}</li>" for item in advice.findings) + "</ul>")
    if summary.grades:
        body.append(f"<h2>{escape(accuracy_title(summary))}</h2>")
        if (headline := accuracy_headline(summary)) is not None:
            body.append(f'<p class="headline">{escape(headline)}</p>')
        head = "".join(f"<th>{escape(title)}</th>" for title in GRADE_HEADERS.values())
        graded = []
        for grade_row in summary.grades:
            values = grade_cells(summary, grade_row)
            graded.append("<tr>" + "".join(f"<td>{escape(values[key])}</td>" for key in GRADE_HEADERS) + "</tr>")
        body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(graded)}</tbody></table>")
        graded_points = _graded_points(summary)
        if graded_points:
            title = "Cost per graded question against accuracy, with 95% intervals"
            body.append(cost_chart(graded_points, title, "accuracy against the known answers", cost_title=GRADED_COST))
    if summary.best:
        against = arm_name(summary, summary.best)
        body.append(f"<h2>Against {escape(against)}</h2>")
        head = "".join(f"<th>{escape(title)}</th>" for title in HEADERS.values())
        rows = []
        for row in summary.rows:
            values = cells(summary, row)
            css = ' class="reference"' if row.reference else ""
            rows.append(f"<tr{css}>" + "".join(f"<td>{escape(values[key])}</td>" for key in HEADERS) + "</tr>")
        body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
        title = f"Cost per question against win rate over {against}, with 95% intervals"
        body.append(cost_chart(_points(summary), title, "win rate against the reference", even=0.5))
    body.append("<h2>How it was judged</h2>")
    listed = [*rules(summary), *bias_lines(summary)]
    body.append("<ul>" + "".join(f"<li>{escape(rule)}</li>" for rule in listed) + "</ul>")
    shared = sharing_lines(summary)
    if shared:
        body.append("<h2>Shared proposals</h2>")
        body.append("<ul>" + "".join(f"<li>{escape(line)}</li>" for line in shared) + "</ul>")
    body.append("<h2>Cost</h2>")
    closing = [*(total_lines(totals) if totals else []), spending_line(summary)]
    body.append('<ul class="small">' + "".join(f"<li>{escape(line)}</li>" for line in closing) + "</ul>")
    if verdicts:
        body.append(f"<details><summary>Every verdict ({len(verdicts)})</summary><ul class='small'>")
        body += _verdict_items(summary, verdicts)
        body.append("</ul></details>")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(TITLE)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )
