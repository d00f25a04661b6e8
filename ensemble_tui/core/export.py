"""Exports of a turn or a whole session as JSON, Markdown or one self-contained HTML file.

The HTML has its style inline and loads nothing, so it opens offline; model text is rendered
from Markdown with raw HTML disabled, so a reply cannot inject markup or scripts.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Literal

from markdown_it import MarkdownIt

from ensemble_tui.core.atomic import atomic_write_text
from ensemble_tui.core.report import report_markdown
from ensemble_tui.core.runlog import TurnRecord
from ensemble_tui.core.session import SessionData, render_transcript

ExportFormat = Literal["json", "md", "html"]
FORMATS: tuple[ExportFormat, ...] = ("json", "md", "html")

_STYLE = """
body { font: 16px/1.55 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1d232a; }
h1, h2, h3, h4 { line-height: 1.25; }
pre { background: #f4f5f7; padding: .75rem; overflow-x: auto; border-radius: 4px; }
code { font-family: ui-monospace, monospace; font-size: .92em; }
table { border-collapse: collapse; margin: 1rem 0; font-size: .92em; }
th, td { border: 1px solid #cfd4da; padding: .3rem .6rem; text-align: left; vertical-align: top; }
blockquote { border-left: 3px solid #cfd4da; margin-left: 0; padding-left: 1rem; color: #4a5560; }
"""


def _markdown_renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table").enable("strikethrough")


def render_html(title: str, markdown: str) -> str:
    body = _markdown_renderer().render(markdown)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{html.escape(title)}</title>\n'
        f"<style>{_STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )


def turn_markdown(record: TurnRecord) -> str:
    return f"# Run report: {record.query}\n\n" + report_markdown(record)


def session_markdown(session: SessionData, turns: list[TurnRecord]) -> str:
    parts = [render_transcript(session).rstrip()]
    if turns:
        parts.append("# Run reports")
        for number, record in enumerate(turns, start=1):
            parts.append(f"## Run {number}: {record.query}\n\n" + report_markdown(record, level=3))
    return "\n\n".join(parts) + "\n"


def export_turn(record: TurnRecord, fmt: ExportFormat) -> str:
    if fmt == "json":
        return json.dumps(record.to_json(), indent=2, ensure_ascii=False) + "\n"
    markdown = turn_markdown(record)
    return markdown if fmt == "md" else render_html(f"Run report: {record.query}", markdown)


def export_session(session: SessionData, turns: list[TurnRecord], fmt: ExportFormat) -> str:
    if fmt == "json":
        data = {"session": session.model_dump(mode="json"), "turns": [record.to_json() for record in turns]}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    markdown = session_markdown(session, turns)
    return markdown if fmt == "md" else render_html(f"Chat {session.id}", markdown)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:40] or "export"


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
