"""The run report: every call, answer, review and vote of one turn, as Markdown sections.

The app shows these sections; exports reuse them, so what a user sees and what they export
never drift apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.chat.runlog import Artifact, CallRecord, TurnRecord
from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.money import SIMULATED_LABEL, amount, money
from ensemble_tui.core.records.restyle import saved_line
from ensemble_tui.core.text.markdown_blocks import nest_headings
from ensemble_tui.core.turn.styles.ranking import shared_places

MEDAL_MARKS = {"gold": "🥇 gold", "silver": "🥈 silver", "bronze": "🥉 bronze"}


@dataclass(frozen=True)
class ReportSection:
    title: str
    markdown: str


def _cell(value: object) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return str(value).replace("\n", " ").replace("|", "\\|")


def table(headers: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def _question(query: str, keep_lines: bool) -> str:
    """The question on one line, or (for a page) with its own line breaks kept inside the list item."""
    if not keep_lines or "\n" not in query.strip():
        return _cell(query)
    return "  \n  ".join(line.rstrip() for line in query.strip().split("\n"))


REPLACED = "replaced by a redo"


def replaced_runs(records: Sequence[TurnRecord], history: Sequence[ChatMessage]) -> frozenset[int]:
    """The runs (0-based, as `records` lists them) whose reply a redo replaced: runs that ended
    with a reply the chat no longer holds, where another run's reply to the same question stands.
    Derived from the chat each time, so a reply brought back (core/chat/session.py's
    `brought_back`) is no longer counted and the redo's is. Replies are matched by text, each
    reply in the chat standing for one run, the newest first: a redo that wrote the same words
    again (the demo does) still leaves the older run marked."""
    in_chat = Counter(message.text for message in history if message.role == "assistant")
    standing: set[str] = set()  # the questions whose reply is in the chat
    missing: list[int] = []
    for index in reversed(range(len(records))):
        record = records[index]
        final = final_text(record) if record.outcome == "final" else None
        if final is None:
            continue
        if in_chat[final] > 0:
            in_chat[final] -= 1
            standing.add(record.query)
        else:
            missing.append(index)
    return frozenset(index for index in missing if records[index].query in standing)


def final_text(record: TurnRecord) -> str | None:
    """The reply a run ended with, as it was stored with the chat; None if it ended without one."""
    finals = [artifact for artifact in record.artifacts if artifact.kind == "final"]
    return finals[-1].text if finals else None


def outcome_label(record: TurnRecord, replaced: bool = False) -> str:
    """ "final", "failed", "cancelled"; "final, replaced by a redo" for a reply a redo replaced."""
    return f"{record.outcome}, {REPLACED}" if replaced else record.outcome


def _summary(record: TurnRecord, page: bool = False, replaced: bool = False) -> str:
    timings = []
    if record.proposers_s:
        timings.append("proposal rounds " + ", ".join(f"{s:.1f} s" for s in record.proposers_s))
    if record.aggregator_s:
        timings.append("aggregator passes " + ", ".join(f"{s:.1f} s" for s in record.aggregator_s))
    lines = [
        f"- **Question:** {_question(record.query, page)}",
        f"- **Mode:** {_label(record.mode, Mode)}{_style(record)} · **outcome:** {outcome_label(record, replaced)}",
        f"- **Started:** {record.started_at} · {_cost(record)} · {_cost_basis(record)}",
    ]
    if timings:
        lines.append("- **Timings:** " + "; ".join(timings))
    if saved := saved_line(record.calls_saved, record.reused_from):  # a restyle (core/records/restyle.py)
        lines.append(f"- **Proposals reused:** {saved}")
    return "\n".join(lines)


def _style(record: TurnRecord) -> str:
    """ " · **style:** Council" for a multi-model run; single models have no style."""
    try:
        multi = Mode.parse(record.mode).is_multi
    except ValueError:  # an added provider's single run
        multi = False
    return f" · **style:** {_label(record.style, Style)}" if multi else ""


def _cost(record: TurnRecord) -> str:
    """ "**cost:** $0.0123 (session $0.1711)"; a demo's run says what it would have cost, simulated."""
    if record.simulated:
        turn, session = amount(record.turn_cost_usd, simulated=True), amount(record.session_cost_usd, simulated=True)
        return f"**would cost:** {turn} (session {session}) {SIMULATED_LABEL}"
    return f"**cost:** {money(record.turn_cost_usd)} (session {money(record.session_cost_usd)})"


def _cost_basis(record: TurnRecord) -> str:
    """Which costs are what the providers billed (OpenRouter reports it) and which are estimates
    from the configured prices."""
    exact = sum(call.usage.cost_exact for call in record.calls)
    if not exact:
        return "estimated from the configured prices"
    if exact == len(record.calls):
        return "as billed by the providers"
    return f"{exact} of {len(record.calls)} calls as billed by the provider, the rest estimated"


def _cost_cell(call: CallRecord, simulated: bool) -> str:
    """A call's cost to the hundredth of a cent (calls are compared with each other), and how
    it is known: billed, estimated, or simulated (a demo's call, at the configured prices)."""
    basis = "sim." if simulated else "billed" if call.usage.cost_exact else "est."
    basis += " (input alone)" if call.estimated else ""
    return f"${call.cost_usd:.4f} {basis}"


def _label(value: str, kind: type[Mode] | type[Style]) -> str:
    """A mode's or style's label; an added provider's single run is shown as recorded."""
    try:
        return kind.parse(value).label
    except ValueError:
        return value


def _calls(record: TurnRecord) -> str:
    rows = [
        [
            call.provider,
            call.model,
            call.role,
            call.attempt,
            f"{call.latency_s:.2f} s",
            call.usage.input_tokens + call.usage.cached_input_tokens + call.usage.cache_write_tokens,
            call.usage.cached_input_tokens,
            call.usage.output_tokens,
            _cost_cell(call, record.simulated),
            call.outcome,
        ]
        for call in record.calls
    ]
    headers = ["model", "id", "role", "try", "latency", "in", "cached", "out", "cost", "outcome"]
    return table(headers, rows)


def _texts(artifacts: list[Artifact], title_of: Any, page: bool = False) -> str:
    return "\n\n".join(f"#### {title_of(a)}\n\n{_quoted(a.text, page)}" for a in artifacts)


def _quoted(text: str, page: bool) -> str:
    """A model's text placed under the report's "####" titles; on a page, its own headings
    ("# Proposed Reply 1:") are moved below them so the page's outline stays the report's."""
    return nest_headings(text.strip(), 4) if page else text.strip()


def _vote_table(vote: Artifact) -> str:
    if positions := vote.data.get("positions"):
        rows = [
            [place, p["author"], "-" if p["average"] is None else f"{p['average']:.2f}", p["ballots"]]
            for place, p in zip(shared_places([p["average"] for p in positions]), positions, strict=True)
        ]
        counted = f"\n\n{vote.data.get('ballots_counted', 0)} of {vote.data.get('ballots_asked', 0)} ballots counted."
        return table(["place", "model", "average position", "ballots"], rows) + counted
    standings = vote.data.get("standings")
    if not standings:
        return vote.text
    medals = vote.data.get("medals", {})
    rows = [
        [
            s["rank"],
            s["author"],
            f"{s['points']:g}",
            s["first_places"],
            "-" if s["mean_overall"] is None else f"{s['mean_overall']:.2f}",
            "-" if s["mean_correctness"] is None else f"{s['mean_correctness']:.2f}",
            MEDAL_MARKS.get(medals.get(s["author"], ""), ""),
        ]
        for s in standings
    ]
    headers = ["rank", "model", "Borda points", "first places", "mean overall", "mean correctness", "medal"]
    return table(headers, rows) + ("\n\n" + vote.text if vote.text else "")


def turn_report(record: TurnRecord, page: bool = False, replaced: bool = False) -> list[ReportSection]:
    """Sections for one turn, in the order a reader follows the run. `page`: for a standalone
    document (the HTML export), where headings form an outline and line breaks are kept.
    `replaced`: a redo replaced its reply in the chat (`replaced_runs`); the reply is shown all
    the same, marked so."""
    by_kind: dict[str, list[Artifact]] = {}
    for artifact in record.artifacts:
        by_kind.setdefault(artifact.kind, []).append(artifact)
    sections = [ReportSection("Summary", _summary(record, page, replaced)), ReportSection("Calls", _calls(record))]
    for auto in by_kind.get("auto", []):  # what auto mode decided, and why (core/turn/auto.py)
        sections.append(ReportSection("Auto", auto.text))
    answers = by_kind.get("answer", [])
    if by_kind.get("debate") and answers:  # the later rounds' answers are the debate rounds, shown below
        answers = [a for a in answers if a.round == min(b.round for b in answers)]
    if answers:
        sections.append(ReportSection("Answers", _texts(answers, lambda a: f"{a.author} · round {a.round}", page)))
    if aside := by_kind.get("auto-sample"):
        title = "Set aside by auto"
        sections.append(ReportSection(title, _texts(aside, lambda a: f"{a.author} · not sent to any model", page)))
    if resubmissions := by_kind.get("resubmission"):
        title = "Resubmissions"
        sections.append(ReportSection(title, _texts(resubmissions, lambda a: f"Request {a.round}", page)))
    if aggregations := by_kind.get("aggregation"):
        title = "Aggregator passes"
        sections.append(ReportSection(title, _texts(aggregations, lambda a: f"{a.author} · pass {a.round}", page)))
    if debate := by_kind.get("debate"):
        sections.append(
            ReportSection(
                "Debate rounds",
                _texts(debate, lambda a: f"Agent {a.data.get('agent')} ({a.author}) · round {a.round}", page),
            )
        )
    reviews = by_kind.get("ranking", []) + by_kind.get("critique", [])
    if reviews:

        def review_title(a: Artifact) -> str:
            labels = ", ".join(f"{label} = {who}" for label, who in a.data.get("labels", {}).items())
            state = "counted" if a.data.get("accepted") else f"left out: {a.data.get('problem')}"
            return f"{a.kind.capitalize()} by {a.author} ({labels}; {state})"

        sections.append(ReportSection("Reviews", _texts(reviews, review_title, page)))
    for vote in by_kind.get("vote", []):
        sections.append(ReportSection("Vote", _vote_table(vote)))
    if checks := by_kind.get("quotes"):
        sections.append(ReportSection("Quote checks", _quote_checks(checks)))
    if final := by_kind.get("final"):
        line = final[-1].data.get("provenance")
        text = _quoted(final[-1].text, page) if page else final[-1].text
        title = f"Final reply ({REPLACED})" if replaced else "Final reply"
        sections.append(ReportSection(title, text + (f"\n\n*{line}*" if line else "")))
    return sections


def report_markdown(record: TurnRecord, level: int = 2, page: bool = False) -> str:
    heading = "#" * level
    sections = turn_report(record, page)
    return "\n\n".join(f"{heading} {section.title}\n\n{section.markdown}" for section in sections)


def _quote_checks(artifacts: list[Artifact]) -> str:
    """Per reply and proposal: the summary, then every check with its page."""
    from ensemble_tui.core.paper.quotes import QuoteReport, stderr_lines

    parts = []
    for artifact in artifacts:
        report = QuoteReport.from_record(artifact.data)
        lines = "\n".join(f"- {_cell(line)}" for line in stderr_lines(report)) or "- no quotations"
        parts.append(
            f"**{_cell(artifact.author or 'Final reply')}:** {report.summary() or 'nothing to check'}\n\n{lines}"
        )
    return "\n\n".join(parts)
