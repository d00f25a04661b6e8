"""LaTeX math in replies shown as Unicode text (issue 16): a corpus of formulas from papers and
model answers with the text a reader sees for each, dollar signs that are not math, and code
that is never touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ensemble_tui.core.math import DISPLAY_MATH
from ensemble_tui.core.math.latex_unicode import Unconvertible, latex_to_unicode
from ensemble_tui.core.math.mathtext import has_math, render_math

FENCE = f"```{DISPLAY_MATH}"

CORPUS = json.loads((Path(__file__).parent.parent / "data" / "math_corpus.json").read_text(encoding="utf-8"))
FORMULAS = CORPUS["formulas"]


def _expected(entry: dict) -> str:
    expected = entry["expected"]
    return "\n".join(expected) if isinstance(expected, list) else expected


def test_the_corpus_is_as_large_as_the_issue_asks():
    assert len({entry["latex"] for entry in FORMULAS}) >= 60
    assert sum(isinstance(entry["expected"], list) for entry in FORMULAS) >= 8  # matrices, cases, aligned


@pytest.mark.parametrize("entry", FORMULAS, ids=lambda e: ("D " if e.get("display") else "") + e["latex"][:50])
def test_formula_renders_as_written_in_the_corpus(entry: dict):
    rendered = latex_to_unicode(entry["latex"], display=entry.get("display", False))
    assert rendered == _expected(entry)
    assert "\\" not in rendered


def test_a_reply_with_math_in_a_sentence_reads_as_text():
    reply = r"Attention is $\mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V$, with \(\alpha+\beta = 1\)."
    assert render_math(reply) == "Attention is softmax(QKᵀ/√dₖ)V, with α+β = 1."


def test_display_math_is_a_block_of_its_rows_as_laid_out_with_no_invisible_indent():
    reply = "The identity:\n\n$$\n\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}\n$$\n\nholds."
    rendered = render_math(reply)
    lines = rendered.split("\n")
    rows = lines[lines.index(FENCE) + 1 : lines.index("```")]
    assert rows == ["⎛a  b⎞", "⎝c  d⎠"]
    assert rendered.startswith("The identity:\n") and rendered.endswith("\nholds.")
    assert "\u2800" not in rendered and "\u00a0" not in rendered


def test_display_math_in_the_middle_of_a_line_gets_lines_of_its_own():
    rendered = render_math(r"The sum $$\sum_{i=1}^{n} x_i^2$$ is positive.")
    assert rendered == f"The sum \n\n{FENCE}\n∑ᵢ₌₁ⁿ xᵢ²\n```\n\nis positive."


def test_display_math_in_a_list_item_stays_in_the_item():
    rendered = render_math("- first\n  \\[ \\hat{y} = Wx \\]\n- second")
    assert f"\n  {FENCE}\n  ŷ = Wx\n  ```\n" in rendered
    assert rendered.startswith("- first") and rendered.endswith("\n- second")


def test_display_math_in_a_quote_keeps_the_quote_marks():
    rendered = render_math("> $$\n> x = 1 \\\\ y = 2\n> $$")
    assert f"> {FENCE}\n> x = 1\n> y = 2\n> ```" in rendered


def test_text_that_markdown_would_read_as_markup_is_escaped():
    # |x| inside a table cell must not split the cell; a* b* must not become emphasis.
    assert render_math("| a | $|x|$ |") == "| a | \\|x\\| |"
    assert render_math(r"$a^* + b^*$") == "a\\* + b\\*"


def test_a_formula_that_cannot_be_converted_is_shown_raw_as_code():
    assert render_math(r"We use $\weirdmacro{x}$ here.") == r"We use `$\weirdmacro{x}$` here."
    rendered = render_math("Then\n$$\n\\weirdmacro{y}\n+ 1\n$$\ndone")
    assert "```latex\n\\weirdmacro{y}\n+ 1\n```" in rendered
    with pytest.raises(Unconvertible):
        latex_to_unicode(r"\frac{a}{b")


NOT_MATH = [
    "It costs $5 and $10.",
    "Set $HOME before running.",
    "Copy it to $HOME/$USER first.",
    "Prices: $5, $6, $7.",
    "Between $5-$10 per hour.",
    "US$5 and US$10.",
    "A $100,000 salary and $3 in tips.",
    "I paid $20 for a ticket and my friend paid $30.",
    "A lone $ sign.",
    r"Escaped \$x\$ stays.",
    "Spaced $ 5 and 6 $ stays.",
    "Costs $5.99/$6.49.",
    "${HOME}/bin is on the path.",
    "Costs $5 (or $7 with tax).",
    "About 3$/kg and 4$/kg.",
    "Run export PATH=$PATH:$HOME/bin now.",
    "Tip: $$$ signs.",
    "Worth $1.5M and $2M.",
    "Use `$PATH` and `$x$` in code spans.",
    "Costs $$ only when opened.",
]


@pytest.mark.parametrize("text", NOT_MATH)
def test_dollars_that_are_not_math_stay_as_they_are(text: str):
    assert render_math(text) == text


def test_code_blocks_and_code_spans_are_never_touched():
    reply = (
        "Inline `$\\alpha$` and ``a `$x$` b`` stay.\n\n"
        "```bash\necho $PATH $x$\n$$\\sum$$\n```\n\n"
        "    indented $y$ \\(z\\) code\n\n"
        "~~~\n$\\beta$\n~~~\n\n"
        "But $\\gamma$ is math."
    )
    rendered = render_math(reply)
    assert rendered == reply.replace("$\\gamma$", "γ")


def test_has_math_is_a_cheap_first_look():
    assert has_math("with $x$") and has_math(r"with \(x\)") and has_math(r"with \[x\]")
    assert not has_math("plain text, (parentheses) and [brackets]")
    assert render_math("plain text") == "plain text"


def test_hostile_math_is_shown_raw_and_never_stops_the_rendering():
    nested = "$" + "\\sqrt{" * 2000 + "x" + "}" * 2000 + "$"
    assert render_math(nested) == f"`{nested}`"  # too deep to parse: raw, as code
    unclosed = "\\( " * 20000 + "and $$ never closed"
    assert render_math(unclosed) == unclosed
