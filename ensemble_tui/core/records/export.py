"""Exports of a turn or a whole session as JSON, Markdown or one self-contained HTML file.

The HTML has its style inline and loads nothing, so it opens offline; model text is rendered
from Markdown with raw HTML disabled, so a reply cannot inject markup or scripts; its images
are links (an `<img>` would fetch its address on opening), and a Content-Security-Policy forbids
every load. Its LaTeX is MathML (drawn by the browser, no script or font to fetch; see
core/math/mathml.py); the Markdown and JSON exports keep the LaTeX as written. The page is a
document with an outline: a model's own headings sit below the report's, a question keeps its
line breaks, long URLs wrap. Each checked quote carries its verdict in Markdown and HTML.
"""

from __future__ import annotations

import html
import json
import re
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.chat.session import SessionData, render_transcript
from ensemble_tui.core.claims.labels import KIND_LABELS
from ensemble_tui.core.claims.model import Stance, claims_of
from ensemble_tui.core.math.mathml import latex_to_mathml
from ensemble_tui.core.math.mathtext import substitute_math
from ensemble_tui.core.records.report import report_markdown
from ensemble_tui.core.store.atomic import atomic_write_text
from ensemble_tui.core.text.markdown_blocks import keep_line_breaks, nest_headings
from ensemble_tui.core.text.sanitize import inert_images, strip_control

ExportFormat = Literal["json", "md", "html"]
FORMATS: tuple[ExportFormat, ...] = ("json", "md", "html")

_STYLE = """
body { font: 16px/1.55 system-ui, sans-serif; max-width: 90rem; margin: 2rem auto; padding: 0 1.5rem; color: #1d232a; }
h1, h2, h3, h4 { line-height: 1.25; }
pre { background: #f4f5f7; padding: .75rem; overflow-x: auto; border-radius: 4px; }
code { font-family: ui-monospace, monospace; font-size: .92em; }
table { border-collapse: collapse; margin: 1rem 0; font-size: .92em; display: block; overflow-x: auto; }
th, td { border: 1px solid #cfd4da; padding: .3rem .6rem; text-align: left; vertical-align: top; }
blockquote { border-left: 3px solid #cfd4da; margin-left: 0; padding-left: 1rem; color: #4a5560; }
p, li, td, th, h1, h2, h3, h4, h5, h6, blockquote { overflow-wrap: anywhere; }
td, th { min-width: 5em; }
math[display="block"] { display: block; margin: .75rem 0; padding: .25rem 0; overflow-x: auto; overflow-y: hidden; }
"""


# The page may load nothing: its style is inline, and a stray load (an image a reply names, a
# tracking pixel) is refused by the browser even if one slipped past the renderer.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'"


def _markdown_renderer() -> MarkdownIt:
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table").enable("strikethrough")
    renderer.add_render_rule("image", _image_as_link)
    return renderer


def _image_as_link(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """An image (inline `![alt](url)` or reference-style `![alt][ref]`) as a link to it: an
    `<img>` would fetch its address when the file is opened."""
    token = tokens[idx]
    depth = sum(1 if t.type == "link_open" else -1 if t.type == "link_close" else 0 for t in tokens[:idx])
    alt = "".join(child.content for child in token.children or [] if child.type in ("text", "code_inline"))
    label = html.escape(f"image: {alt}" if alt else "image", quote=False)
    src = str(token.attrGet("src") or "")
    if not src or depth > 0:  # inside a link already: a link cannot hold another
        return label
    return f'<a href="{html.escape(src)}" rel="noreferrer noopener">{label}</a>'


def render_html(title: str, markdown: str) -> str:
    body = _html_with_mathml(strip_control(markdown))  # a chat saved before a control was stripped
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{html.escape(title)}</title>\n'
        f"<style>{_STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )


def _html_with_mathml(markdown: str) -> str:
    """Markdown to HTML with each formula as MathML. Formulas are swapped for placeholders the
    Markdown renderer passes through as text, then put back in the text (never inside a tag)."""
    nonce = secrets.token_hex(6)
    formulas: list[str] = []

    def placeholder(latex: str, display: bool) -> str:
        formulas.append(latex_to_mathml(latex, display))
        return f"mathml{nonce}n{len(formulas) - 1}e"

    body = _markdown_renderer().render(substitute_math(markdown, placeholder, escape=False))
    if not formulas:
        return body
    found = re.compile(rf"mathml{nonce}n(\d+)e")
    parts = re.split(r"(<[^>]*>)", body)
    return "".join(part if part.startswith("<") else found.sub(lambda m: formulas[int(m[1])], part) for part in parts)


def _title_line(query: str) -> str:
    """A question in a heading: its first line (a heading cannot hold more)."""
    lines = query.strip().split("\n")
    return lines[0].strip() + (" …" if len(lines) > 1 else "")


def turn_markdown(record: TurnRecord, page: bool = False) -> str:
    return (
        f"# Run report: {_title_line(record.query)}\n\n"
        + report_markdown(record, page=page)
        + claims_markdown(record, level=2)
    )


def session_markdown(session: SessionData, turns: list[TurnRecord], page: bool = False) -> str:
    marked = with_verdicts(session)
    parts = [render_transcript(_as_page(marked) if page else marked).rstrip()]
    if turns:
        parts.append("# Run reports")
        for number, record in enumerate(turns, start=1):
            body = report_markdown(record, level=3, page=page) + claims_markdown(record, level=3)
            parts.append(f"## Run {number}: {_title_line(record.query)}\n\n{body}")
    return "\n\n".join(parts) + "\n"


def with_verdicts(session: SessionData) -> SessionData:
    """The chat with each checked quote followed by its verdict, as the chat shows it ("✓ p. 2",
    "✗ not in the paper"); the JSON export keeps the checks as data instead."""
    if not any(message.checks for message in session.history):
        return session
    from ensemble_tui.core.paper.quotes import QuoteReport, annotate_markdown, emphasised

    history = [
        message.model_copy(
            update={"text": annotate_markdown(message.text, QuoteReport.from_record(message.checks), emphasised)}
        )
        if message.checks
        else message
        for message in session.history
    ]
    return session.model_copy(update={"history": history})


def _as_page(session: SessionData) -> SessionData:
    """The chat as the HTML page shows it: questions keep their lines, replies' headings sit
    below the transcript's "## Reply"."""
    history = [
        message.model_copy(
            update={
                "text": keep_line_breaks(message.text) if message.role == "user" else nest_headings(message.text, 2)
            }
        )
        for message in session.history
    ]
    return session.model_copy(update={"history": history})


def export_turn(record: TurnRecord, fmt: ExportFormat) -> str:
    if fmt == "json":
        return json.dumps(record_json(record), indent=2, ensure_ascii=False) + "\n"
    if fmt == "md":
        return inert_images(turn_markdown(record))
    return render_html(f"Run report: {_title_line(record.query)}", turn_markdown(record, page=True))


def export_session(session: SessionData, turns: list[TurnRecord], fmt: ExportFormat) -> str:
    if fmt == "json":
        data: dict[str, Any] = {"session": session.model_dump(mode="json")}
        if session.parent_id is not None:  # a branch names its parent (core/store/fork.py)
            data["branch_of"] = {"chat": session.parent_id, "after_question": session.fork_turn or 0}
        data["turns"] = [record_json(record) for record in turns]
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if fmt == "md":
        return inert_images(session_markdown(session, turns))
    return render_html(f"Chat {session.id}", session_markdown(session, turns, page=True))


# ----- the claim map (issue 26) -------------------------------------------------------------------


def record_json(record: TurnRecord) -> dict[str, Any]:
    """A run's record, with its claim map at the top level: `claims[]` (each with `stances` by
    model and their evidence, disputed first), `claims_summary` and `confidence`; null without one."""
    claim_map = claims_of(record.artifacts)
    return {
        **record.to_json(),
        "claims": [claim.model_dump(mode="json") for claim in claim_map.disputed_first()] if claim_map else None,
        "claims_summary": claim_map.summary if claim_map else None,
        "confidence": claim_map.confidence if claim_map else None,
    }


def claims_markdown(record: TurnRecord, level: int = 2) -> str:
    """The run's claim map as a table, disputed claims first: a column per model with its stance,
    its quote and the evidence mark; "" without a map."""
    claim_map = claims_of(record.artifacts)
    if claim_map is None or not claim_map.claims:
        return ""
    models = list(dict.fromkeys(name for claim in claim_map.claims for name in claim.stances))
    head = ["Claim", "Kind", *models, "Cited"]
    rows = [
        [
            claim.text,
            KIND_LABELS[claim.kind],  # Disputed, Agreed…: as the app's Claims view says
            *(_stance_cell(claim.stances.get(name)) for name in models),
            ", ".join(_citation_cell(c.text, c.found) for c in claim.citations),
        ]
        for claim in claim_map.disputed_first()
    ]
    lines = [
        "",
        f"{'#' * level} Claim map",
        "",
        f"{_cell(claim_map.summary)} (drawn by {_cell(claim_map.mapper)})",
        "",
        "| " + " | ".join(_cell(text) for text in head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(_cell(text) for text in row) + " |" for row in rows),
        "",
    ]
    return "\n".join(lines)


def _stance_cell(stance: Stance | None) -> str:
    if stance is None:
        return "silent"
    parts = [stance.stance]
    if stance.quote:
        parts.append(f"“{stance.quote}”")
    if stance.evidence is not None and stance.evidence.marker:
        parts.append(stance.evidence.marker)
    return " ".join(parts)


def _citation_cell(text: str, found: bool | None) -> str:
    return f"{text} ✗" if found is False else text


def _cell(text: str) -> str:
    """Model text in a table cell: one line, its pipes and Markdown markup inert."""
    flat = " ".join(text.split())
    return re.sub(r"([\\`*_\[\]<>|#])", r"\\\1", flat)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:40] or "export"


def run_stem(session_id: str, number: int) -> str:
    """The file name (before its suffix) of run `number` of a chat, as the palette and the
    command write it."""
    return f"{session_id}-run-{number}"


def chat_stem(session_id: str) -> str:
    return f"{session_id}-chat"


def write_export(folder: Path, stem: str, fmt: ExportFormat, content: str) -> Path:
    """Write an export atomically into `folder`, never overwriting an earlier one."""
    base = _slug(stem)
    path = folder / f"{base}.{fmt}"
    counter = 2
    while path.exists():
        path = folder / f"{base}-{counter}.{fmt}"
        counter += 1
    atomic_write_text(path, content)
    return path
