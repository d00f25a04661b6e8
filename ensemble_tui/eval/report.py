"""The eval's report in Markdown, JSON or one self-contained HTML file.

Written for a researcher with a minute: the recommendation first, then the table against the
best single model, then the rules, what sharing saved and what the eval cost. The HTML has
inline CSS and an inline SVG chart, and no script, link or address: it fetches nothing. Model
text (the judges' reasons, failure lines) is escaped wherever it appears.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict
from html import escape
from typing import Literal

from ensemble_tui.core.text.sanitize import strip_control
from ensemble_tui.eval.chart import Point, cost_chart
from ensemble_tui.eval.model import ArmAnswer, EvalPlan, Verdict
from ensemble_tui.eval.recommend import Recommendation, arm_name, cost_ratio, percent, recommend
from ensemble_tui.eval.stats import ArmRow, EvalSummary, summarize

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


def render(plan: EvalPlan, answers: Iterable[ArmAnswer], verdicts: Iterable[Verdict], fmt: Format) -> str:
    verdicts = list(verdicts)
    summary = summarize(plan, answers, verdicts)
    advice = recommend(summary)
    if fmt == "md":
        return markdown(plan, summary, advice)
    if fmt == "json":
        return as_json(plan, summary, advice, verdicts)
    if fmt == "html":
        return as_html(plan, summary, advice, verdicts)
    raise ValueError(f"unknown report format {fmt!r}: choose md, json or html")


# ----- the table's cells, shared by the three formats ----------------------------------------


def _money(value: float | None) -> str:
    """Dollars to a tenth of a cent (a cent's hundredth below that): one column reads alike."""
    if value is None:
        return "—"
    if value >= 1:
        return f"${value:.2f}"
    return f"${value:.3f}" if value >= 0.001 or value == 0 else f"${value:.5f}"


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
    cost = _money(row.cost_per_question) + (f" ({ratio:.1f}×)" if ratio is not None and not row.reference else "")
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
        dollars = f" and {_money(item.dollars_saved)}" if item.dollars_saved else ""
        lines.append(
            f"{item.arm} reused the proposals of {item.shared_from} on {item.questions} question(s): "
            f"{item.calls_saved} calls{dollars} saved."
        )
    return lines


def spending_line(summary: EvalSummary) -> str:
    lost = len(summary.lost_verdicts)
    line = (
        f"This eval spent {_money(summary.total_cost)}: {_money(summary.answers_cost)} on answers and "
        f"{_money(summary.judging_cost)} on {summary.verdicts} verdicts"
    )
    return line + (f", of which {lost} were lost (unreadable twice or a failed call)." if lost else ".")


def intro(plan: EvalPlan, summary: EvalSummary) -> str:
    judges = ", ".join(plan.judges) or "none"
    against = arm_name(summary, summary.best) if summary.best else "none"
    return f"{summary.questions} questions · {len(summary.arms)} arms · judges: {judges} · reference: {against}"


# ----- Markdown ----------------------------------------------------------------------------


def md_text(text: str) -> str:
    """Inert in Markdown and in a terminal: no control characters, HTML or table breaks."""
    cleaned = strip_control(text).replace("\n", " ")
    return escape(cleaned, quote=False).replace("|", "\\|")


def markdown(plan: EvalPlan, summary: EvalSummary, advice: Recommendation) -> str:
    lines = [f"# {TITLE}", "", md_text(intro(plan, summary)), "", f"**{md_text(advice.headline)}**", ""]
    lines += [f"- {md_text(item)}" for item in advice.findings]
    if summary.best:
        lines += ["", f"## Against {md_text(arm_name(summary, summary.best))}", ""]
        lines.append("| " + " | ".join(HEADERS.values()) + " |")
        lines.append("|" + "|".join("---" for _ in HEADERS) + "|")
        for row in summary.rows:
            values = cells(summary, row)
            lines.append("| " + " | ".join(md_text(values[key]) for key in HEADERS) + " |")
    lines += ["", "## How it was judged", ""] + [f"- {rule}" for rule in RULES]
    shared = sharing_lines(summary)
    if shared:
        lines += ["", "## Shared proposals", ""] + [f"- {md_text(line)}" for line in shared]
    lines += ["", "## Cost", "", md_text(spending_line(summary))]
    return "\n".join(lines) + "\n"


# ----- JSON --------------------------------------------------------------------------------


def as_json(plan: EvalPlan, summary: EvalSummary, advice: Recommendation, verdicts: list[Verdict]) -> str:
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
        "recommendation": {"headline": advice.headline, "findings": list(advice.findings)},
        "rules": list(RULES),
        "arms": arms,
        "sharing": [asdict(item) for item in summary.sharing],
        "cost_usd": {
            "answers": summary.answers_cost,
            "judging": summary.judging_cost,
            "total": summary.total_cost,
        },
        "verdicts": [verdict.model_dump(mode="json") for verdict in verdicts],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


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
.chart text { font: 11px system-ui, sans-serif; fill: #333; }
.chart .frame { fill: none; stroke: #999; }
.chart .grid { stroke: #eee; }
.chart .even { stroke: #888; stroke-dasharray: 4 3; }
.chart .bar { stroke: #3a5f9e; stroke-width: 1.5; }
.chart .point { fill: #3a5f9e; }
.chart .reference { fill: #c0392b; }
.chart .label { font-weight: 600; }
details { margin: 1rem 0; }
.small { color: #555; font-size: 0.9rem; }
"""


def _points(summary: EvalSummary) -> list[Point]:
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


def as_html(plan: EvalPlan, summary: EvalSummary, advice: Recommendation, verdicts: list[Verdict]) -> str:
    body = [
        f"<h1>{escape(TITLE)}</h1>",
        f'<p class="intro">{escape(intro(plan, summary))}</p>',
        f'<p class="headline">{escape(advice.headline)}</p>',
        "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in advice.findings) + "</ul>",
    ]
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
        body.append(cost_chart(_points(summary), title))
    body.append("<h2>How it was judged</h2>")
    body.append("<ul>" + "".join(f"<li>{escape(rule)}</li>" for rule in RULES) + "</ul>")
    shared = sharing_lines(summary)
    if shared:
        body.append("<h2>Shared proposals</h2>")
        body.append("<ul>" + "".join(f"<li>{escape(line)}</li>" for line in shared) + "</ul>")
    body.append(f'<p class="small">{escape(spending_line(summary))}</p>')
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
