"""Pure helpers: safe renderables, links, sizes, line breaks, the keymap file."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.text.markdown_blocks import keep_line_breaks
from ensemble_tui.core.text.paths import display_path
from ensemble_tui.ui.chat_log.chat_view import message_renderable
from ensemble_tui.ui.chat_log.rendering import (
    DISPLAY_LIMIT_CHARS,
    http_links,
    human_size,
    is_http_url,
    markdown,
    math_rendering,
    plain,
    set_math_rendering,
)
from ensemble_tui.ui.keymap import load_keymap
from ensemble_tui.ui.widgets.status_bar import elapsed_text


def rendered(renderable) -> str:
    console = Console(width=80, record=True, file=open("/dev/null", "w"), color_system="truecolor")  # noqa: SIM115
    console.print(renderable)
    return console.export_text(styles=False)


def test_plain_never_parses_markup_and_drops_control_characters():
    text = plain("[bold]x[/] \x1b[31m red \x07")
    assert isinstance(text, Text) and text.plain == "[bold]x[/] [31m red "
    assert text.spans == []


def test_markdown_links_are_text_not_live_links():
    renderable = markdown("[paper](https://example.org/p) and <https://example.org/q>")
    assert isinstance(renderable, Markdown) and renderable.hyperlinks is False
    console = Console(width=80, file=open("/dev/null", "w"))  # noqa: SIM115
    segments = list(console.render(renderable))
    assert all(segment.style is None or segment.style.link is None for segment in segments)
    assert "https://example.org/p" in rendered(renderable)


def test_huge_text_is_plain_and_cut():
    big = "x" * (DISPLAY_LIMIT_CHARS + 10)
    shown = markdown(big)
    assert isinstance(shown, Text)
    assert shown.plain.endswith("10 more characters not shown here.")


def test_http_links_only_and_in_order():
    text = "a https://x.org/1, b http://y.org/2. c ftp://z d file:///etc e javascript:alert(1) https://x.org/1"
    assert http_links(text, "https://s.org") == ["https://x.org/1", "http://y.org/2", "https://s.org"]
    assert is_http_url("https://ok") and not is_http_url("javascript:alert(1)") and not is_http_url("https://a b")


def test_keep_line_breaks_outside_code_fences():
    text = "line one\nline two\n\n```\ncode a\ncode b\n```\nafter"
    out = keep_line_breaks(text)
    assert "line one  \nline two" in out
    assert "code a\ncode b" in out
    assert "```\nafter" in out
    lines = [line.rstrip() for line in rendered(markdown(out)).splitlines()]
    assert lines[:2] == ["line one", "line two"]


def test_sources_are_listed_as_plain_lines():
    message = ChatMessage(role="assistant", text="Reply", sources=["https://a.org", "https://b.org"])
    text = rendered(message_renderable(message))
    assert "Sources:" in text and "1. https://a.org" in text and "2. https://b.org" in text


def test_small_formatters(monkeypatch, tmp_path):
    assert human_size(512) == "512 bytes" and human_size(1536) == "1.5 KB" and human_size(5 * 1024**2) == "5.0 MB"
    assert elapsed_text(5.4) == "5s" and elapsed_text(65) == "1m 05s"
    monkeypatch.setenv("HOME", str(tmp_path))
    assert display_path(tmp_path / "papers" / "a.pdf") == "~/papers/a.pdf"
    assert display_path(Path("/elsewhere/a.pdf")) == "/elsewhere/a.pdf"


def test_keymap_file(tmp_path):
    path = tmp_path / "Keymap.json"
    assert load_keymap(path) == ({}, None)
    path.write_text('{"mode.all": "f9"}')
    assert load_keymap(path) == ({"mode.all": "f9"}, None)
    path.write_text('["f9"]')
    keymap, warning = load_keymap(path)
    assert keymap == {} and warning and "binding ids" in warning


def test_a_keymap_entry_that_cannot_be_used_is_named_and_left_out_alone(tmp_path):
    """A mistyped id changed nothing and said nothing (Textual ignores an id that names no
    binding), and one entry that was not a string lost the whole file."""
    path = tmp_path / "Keymap.json"
    path.write_text('{"mode.all": "f9", "mode.al": "f8", "chat.new": 12, "compare.layout": "t"}')
    keymap, warning = load_keymap(path)
    assert keymap == {"mode.all": "f9", "compare.layout": "t"}  # a screen's own key is known too
    assert warning == (
        'Keymap.json: "mode.al" names no binding (the README lists the ids); '
        '"chat.new" is not mapped to a key name like "f9"; the rest is used.'
    )


def test_entries_measure_their_full_height():
    """Textual sizes a Rich renderable by its newlines; a missing final one hides the last line."""
    from ensemble_tui.core.chat.session import Resubmission
    from ensemble_tui.ui.panes.resubmissions import ResubmissionEntry

    console = Console(width=60, file=open("/dev/null", "w"))  # noqa: SIM115
    message = ChatMessage(role="assistant", text="Reply\n\n- a\n- b", sources=["https://a.org"])
    entry = ResubmissionEntry(Resubmission(iteration=2, text="# Proposed Reply 1:\nText"))
    for renderable in (message_renderable(message), entry.content):
        newlines = sum(text.count("\n") for text, _style, _control in console.render(renderable))
        assert newlines == len(console.render_lines(renderable, pad=False))


MATH_REPLY = (
    "Scaled scores $\\frac{QK^T}{\\sqrt{d_k}}$ and weights $\\alpha+\\beta$; it costs $5 and $10.\n\n"
    "$$\\sum_{i=1}^{n} x_i^2$$\n\n"
    "$$\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}$$\n\n"
    "```bash\necho $HOME $x$\n```"
)


def test_math_in_a_reply_is_shown_as_unicode_text_and_raw_when_switched_off():
    assert math_rendering() is True  # on unless the user switches it off
    shown = rendered(markdown(MATH_REPLY))
    assert all(symbol in shown for symbol in "αβ√∑") and "QKᵀ/√dₖ" in shown and "∑ᵢ₌₁ⁿ xᵢ²" in shown
    assert "\\" not in shown  # no LaTeX command left
    assert "it costs $5 and $10." in shown and "echo $HOME $x$" in shown
    rows = [line.strip(" \u2800\u00a0") for line in shown.splitlines() if "⎛" in line or "⎝" in line]
    assert rows == ["⎛a  b⎞", "⎝c  d⎠"]  # a matrix's rows stay rows, aligned
    set_math_rendering(False)
    try:
        raw = rendered(markdown(MATH_REPLY))
    finally:
        set_math_rendering(True)
    assert "$\\alpha+\\beta$" in raw and "α" not in raw
