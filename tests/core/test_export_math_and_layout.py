"""The HTML export shows math as MathML and reads as a document (issue 16): a model's headings sit
below the report's, a question keeps its line breaks, long URLs wrap. The Markdown and JSON
exports keep the LaTeX as written."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.records.export import export_session, export_turn
from tests.core.helpers import run_turn
from tests.core.test_styles import MODELS, answer

MATH_REPLY = (
    "Attention is $\\mathrm{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right)V$ with $\\alpha+\\beta$.\n\n"
    "$$\\sum_{i=1}^{n} x_i^2$$\n\n"
    "It costs $5 and $10. Shell: `echo $HOME`.\n\n"
    "Odd: $\\text{<img src=x onerror=alert(1)>}$ and $\\unknowncommand{x}$."
)


class _Page(HTMLParser):
    """Tags, heading levels with their text, and every attribute that could load something."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.headings: list[tuple[int, str]] = []
        self.loads: list[str] = []
        self._heading: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = int(tag[1])
            self.headings.append((self._heading, ""))
        self.loads += [value or "" for name, value in attrs if name in ("src", "href") and tag != "a"]
        self.loads += [value or "" for name, value in attrs if name.startswith("on")]

    def handle_endtag(self, tag: str) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = None

    def handle_data(self, data: str) -> None:
        if self._heading is not None:
            level, text = self.headings[-1]
            self.headings[-1] = (level, text + data)


def _parsed(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    return parser


async def _math_turn(workspace, scripted, make_engine, question: str = "Explain attention"):
    scripted["Claude"].scripts["proposer"] = [MATH_REPLY]
    await run_turn(make_engine(), Mode.CLAUDE, question)
    (turn,) = workspace.archive.turns(workspace.session.id)
    return turn.record


async def test_html_export_renders_math_as_mathml_with_nothing_to_fetch(workspace, scripted, make_engine):
    record = await _math_turn(workspace, scripted, make_engine)
    page = export_session(workspace.session, [record], "html")
    parsed = _parsed(page)
    assert parsed.tags.count("math") >= 6  # three formulas, in the transcript and in the report
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in page
    assert "<msqrt>" in page and "<mi>α</mi>" in page and ("∑" in page or "&#x02211;" in page)
    assert "script" not in parsed.tags and "img" not in parsed.tags and parsed.loads == []
    assert "It costs $5 and $10." in page and "<code>echo $HOME</code>" in page
    assert "<code>$\\unknowncommand{x}$</code>" in page  # not converted: shown raw, as in the chat
    assert "\\frac" not in page and "\\alpha" not in page


async def test_markdown_and_json_exports_keep_the_latex_as_written(workspace, scripted, make_engine):
    record = await _math_turn(workspace, scripted, make_engine)
    for text in (export_session(workspace.session, [record], "md"), export_turn(record, "md")):
        assert MATH_REPLY in text and "<math" not in text
    data = json.loads(export_session(workspace.session, [record], "json"))
    assert data["session"]["history"][1]["text"] == MATH_REPLY
    assert json.loads(export_turn(record, "json"))["artifacts"][-1]["text"] == MATH_REPLY


async def test_proposed_reply_headings_sit_below_the_reports_own(workspace, scripted, make_engine):
    for label in MODELS:
        scripted[label].scripts["proposer"] = [f"# My heading\n\n{answer(label)}"]
        scripted[label].scripts["synthesis"] = [f"revised by {label}"]
    scripted["ChatGPT"].scripts["aggregator"] = ["REQUEST SYNTHESIS FROM PROPOSERS\nTighten it.", "FINAL REPLY:\nDone."]
    await run_turn(make_engine(), Mode.ALL, "Compare them")
    (turn,) = workspace.archive.turns(workspace.session.id)
    resubmission = next(a.text for a in turn.record.artifacts if a.kind == "resubmission")
    assert "# Proposed Reply 1:" in resubmission  # the text as sent keeps its own top-level headings

    for page in (export_turn(turn.record, "html"), export_session(workspace.session, [turn.record], "html")):
        headings = _parsed(page).headings
        proposed = [level for level, text in headings if text.startswith("Proposed Reply")]
        requests = [level for level, text in headings if text.startswith("Request ")]
        assert proposed and requests and min(proposed) > max(requests)
        assert all(level > 4 for level, text in headings if text == "My heading")
        assert [text for level, text in headings if level == 1][0].startswith(("Run report", "Chat "))
    markdown = export_turn(turn.record, "md")
    assert "\n# Proposed Reply 1:" in markdown  # the Markdown export quotes the texts exactly


async def test_a_multi_line_question_keeps_its_line_breaks(workspace, scripted, make_engine):
    question = "First line of the question\nsecond line\nthird line"
    record = await _math_turn(workspace, scripted, make_engine, question)
    for page in (export_session(workspace.session, [record], "html"), export_turn(record, "html")):
        assert re.search(r"First line of the question<br />\s*second line<br />\s*third line", page)
        headings = [text for level, text in _parsed(page).headings]
        titles = {"Run report: First line of the question …", "Run 1: First line of the question …"}
        assert titles & set(headings)
        assert not any("second line" in text for text in headings)


async def test_long_urls_wrap_on_the_page(workspace, scripted, make_engine):
    url = "https://example.org/" + "a-very-long-path-segment/" * 12 + "paper.pdf"
    scripted["Claude"].scripts["proposer"] = [f"See {url} and <{url}>.\n\n| link |\n|---|\n| {url} |"]
    await run_turn(make_engine(), Mode.CLAUDE, "Where is it?")
    page = export_session(workspace.session, [], "html")
    style = re.search(r"<style>(.*?)</style>", page, re.DOTALL)
    assert style and url in page
    rule = re.search(r"([^{}]*)\{\s*overflow-wrap:\s*anywhere;?\s*\}", style.group(1))
    assert rule, "no rule lets long words break"
    wrapped = {selector.strip() for selector in rule.group(1).split(",")}
    assert {"p", "li", "td", "a"} <= wrapped or {"p", "li", "td"} <= wrapped
