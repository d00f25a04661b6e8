"""The map in the exports (JSON `claims[]` with stances by model and evidence; a table in
Markdown and HTML) and in `ask --json` / the summary line on stderr, from a real demo turn."""

from __future__ import annotations

import json
from pathlib import Path

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.records.export import export_turn
from tests.claims.test_map_turns import last_record, run
from tests.support import run_command

REPO = Path(__file__).resolve().parents[2]


async def test_exports_carry_the_map(engine, workspace):
    await run(engine, Mode.ALL, "What does the paper report?")
    record = last_record(workspace)

    data = json.loads(export_turn(record, "json"))
    first = data["claims"][0]
    assert first["kind"] == "contradiction"
    assert first["stances"]["ChatGPT"]["evidence"]["found"] is True
    assert first["stances"]["ChatGPT"]["evidence"]["page"] == 1
    assert first["stances"]["Claude"]["evidence"]["found"] is False
    assert data["confidence"] == "medium"

    markdown = export_turn(record, "md")
    assert "## Claim map" in markdown and "| Claim | Kind | " in markdown
    row = next(line for line in markdown.splitlines() if line.startswith("| With one resynthesis round"))
    assert "✓ p. 1" in row and "✗ not in the paper" in row

    html = export_turn(record, "html")
    assert "<table>" in html and "✗ not in the paper" in html and "<th>Claim</th>" in html


def test_ask_json_prints_the_whole_turn_and_the_summary_on_stderr(tmp_path, quick_demo):
    pdf = str(REPO / "tests" / "data" / "sample.pdf")
    done = run_command(tmp_path / "home", "ask", "--demo", "--json", "--pdf", pdf, "What does the paper report?")
    assert done.returncode == 0, done.stderr
    turn = json.loads(done.stdout)
    assert turn["reply"] and turn["provenance"]["line"].startswith("All")
    assert turn["claims_summary"] == "2 agreed · 1 disputed · 1 unique · confidence medium"
    disputed = turn["claims"][0]
    assert disputed["stances"]["ChatGPT"]["stance"] == "supports"
    assert disputed["stances"]["Claude"]["stance"] == "contradicts"
    assert turn["quote_checks"]["proposals"]["Claude"]["quotes"]  # each proposal's quotes, checked
    roles = {call["role"] for call in turn["costs"]["calls"]}
    assert {"proposer", "aggregator", "mapper"} <= roles
    assert "claims: 2 agreed · 1 disputed · 1 unique · confidence medium" in done.stderr


async def test_the_html_export_reads_like_the_app_and_uses_the_window(engine, workspace):
    """Issue 35 §10: the claim map printed its raw kinds ("contradiction", "consensus"), table
    cells broke mid-word in a 660 px column (`ChatGP T`), and a display formula got a scrollbar."""
    import re

    await run(engine, Mode.ALL, "What does the paper report?")
    html = export_turn(last_record(workspace), "html")
    kinds = re.findall(r"<tr>\s*<td>[^<]*</td>\s*<td>([^<]*)</td>", html[html.index("Claim map") :])
    assert kinds and kinds[0] == "Disputed" and set(kinds) <= {"Disputed", "Partial", "Unique", "Agreed"}
    assert ">contradiction<" not in html and ">consensus<" not in html
    style = html[html.index("<style>") : html.index("</style>")]
    width = re.search(r"body \{[^}]*max-width: (\d+)rem", style)
    assert width and int(width.group(1)) * 16 >= 1200  # the column follows a 1,200 px window
    cells = re.search(r"td, th \{[^}]*min-width: (\d+)em", style)
    assert cells and int(cells.group(1)) >= 5  # a word like "ChatGPT" is never cut (long URLs still wrap)
    formula = re.search(r'math\[display="block"\] \{([^}]*)\}', style)
    assert formula and "overflow-y: hidden" in formula.group(1)
