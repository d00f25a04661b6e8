"""Exports fetch nothing and stay well-formed; `export -o` writes where a shell would (issue 24 §5)."""

from __future__ import annotations

import argparse
import io
import os
import stat
import threading
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ensemble_tui.commands.export import run_export
from ensemble_tui.core.chat.runlog import TurnRecord
from ensemble_tui.core.chat.session import ChatMessage
from ensemble_tui.core.records.export import export_session, render_html
from ensemble_tui.core.workspace import Workspace

HOSTILE_REPLY = (
    "A pixel ![logo](https://tracker.example/p.gif?user=7) and a reference one ![chart][c].\n\n"
    "[c]: https://tracker.example/chart.png\n\n"
    "Linked: [![badge](https://tracker.example/badge.svg)](https://example.org/).\n\n"
    "Odd formulas: $\\text{<style>}$ then $\\text{</math>}$ and $\\text{<!-- x -->}$, "
    "a fine one $\\frac{a}{b}$, and after them $x^2$.\n\n"
    "$$\\text{</mtext></mrow></math><img src=https://tracker.example/x.png>}$$"
)


class Page(HTMLParser):
    """Every address something would load, and whether each element closes where it opened."""

    VOID = frozenset({"meta", "br", "hr", "img", "input", "link"})

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []
        self.open: list[str] = []
        self.mismatched: list[str] = []
        self.maths = 0
        self.csp = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "meta" and (values.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = values.get("content") or ""
        if tag != "a":
            self.loads += [value or "" for name, value in attrs if name in ("src", "href", "srcset", "data", "poster")]
        if tag == "math":
            self.maths += 1
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if not self.open or self.open[-1] != tag:
            self.mismatched.append(tag)
            return
        self.open.pop()


def parsed(page: str) -> Page:
    parser = Page()
    parser.feed(page)
    parser.close()
    return parser


def test_a_hostile_reply_exports_as_a_page_that_loads_nothing_and_is_balanced() -> None:
    page = render_html("Chat", HOSTILE_REPLY)
    found = parsed(page)
    assert found.loads == []
    assert "<img" not in page and "tracker.example/p.gif" in page  # the address is still there, as a link
    assert '<a href="https://tracker.example/chart.png"' in page  # reference-style too
    assert "default-src 'none'" in found.csp and "img-src 'none'" in found.csp
    assert found.mismatched == [] and found.open == []  # every <math> (and all else) closes where it opened
    assert found.maths == 2  # a/b and x^2; the hostile ones are shown as escaped LaTeX
    assert "<code>$\\text{&lt;style&gt;}$</code>" in page
    assert "<code>$\\text{&lt;/math&gt;}$</code>" in page


def a_chat(home: Path, reply: str = HOSTILE_REPLY) -> Workspace:
    workspace = Workspace.open(home)
    workspace.session.history += [ChatMessage(role="user", text="Q?"), ChatMessage(role="assistant", text=reply)]
    workspace.persist()
    workspace.archive.save_turn(TurnRecord(session=workspace.session.id, mode="claude", query="Q?", outcome="final"))
    return workspace


def export(workspace: Workspace, output: str) -> tuple[int, str, str]:
    args = argparse.Namespace(chat=None, last=False, run=None, format="md", output=output)
    out, err = io.StringIO(), io.StringIO()
    code = run_export(workspace, args, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def expected(workspace: Workspace) -> str:
    records = [stored.record for stored in workspace.archive.turns(workspace.session.id)]
    return export_session(workspace.session, records, "md")


def test_dash_writes_the_export_to_stdout(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = a_chat(home)
    monkeypatch.chdir(tmp_path)
    code, out, err = export(workspace, "-")
    assert (code, err) == (0, "")
    assert out == expected(workspace)
    assert not (tmp_path / "-").exists()


def test_a_symlink_keeps_pointing_at_its_target_which_gets_the_export(home: Path, tmp_path: Path) -> None:
    workspace = a_chat(home)
    target = tmp_path / "reports" / "chat.md"
    target.parent.mkdir()
    target.write_text("old")
    before = target.stat().st_ino
    link = tmp_path / "latest.md"
    link.symlink_to(target)
    assert export(workspace, str(link))[0] == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8") == expected(workspace)
    assert target.stat().st_ino != before  # replaced by a rename (atomic), not rewritten in place
    assert sorted(p.name for p in target.parent.iterdir()) == ["chat.md"]  # no temporary left behind


def test_a_fifo_is_written_to_not_replaced(home: Path, tmp_path: Path) -> None:
    workspace = a_chat(home)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    code, _, err = export(workspace, str(fifo))
    reader.join(timeout=10)
    assert (code, err) == (0, "")
    assert received == [expected(workspace)]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_full_device_is_reported_in_one_line_and_never_replaced(home: Path, tmp_path: Path) -> None:
    """`-o /dev/full`, on a node of its own (a device like /dev/full, made here when allowed)."""
    full = tmp_path / "full"
    try:
        os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        full.open("w").close()
    except OSError:
        pytest.skip("cannot make or open a device node here (not root, or nodev)")
    workspace = a_chat(home)
    code, _, err = export(workspace, str(full))
    assert code == 1
    assert err.count("\n") == 1 and "No space left on device" in err
    assert stat.S_ISCHR(full.stat().st_mode)
    assert not list(tmp_path.glob(".full.*"))  # no temporary file beside it either


REMOTE_IMAGES = (
    'Raw: <img src="http://tracker.example/raw.png"> and <IMG\nsrc=http://tracker.example/upper.png>, '
    "an inline one ![](http://tracker.example/inline.png), a frame <iframe src=//tracker.example/f>.\n\n"
    "```html\n<img src=http://example.org/in-code.png>\n```\n"
)


def test_markdown_exports_and_transcripts_load_no_remote_image(home: Path) -> None:
    """Issue 34 §6: a model's raw `<img src=http://…>` or `![](http://…)` in the Markdown export or
    the chat's transcript would be fetched by a previewer; they read as text or links, as in HTML."""
    from ensemble_tui.core.chat.session import render_transcript

    workspace = a_chat(home, REMOTE_IMAGES + "\n" + HOSTILE_REPLY)
    for markdown in (expected(workspace), render_transcript(workspace.session)):
        outside_code = markdown.replace("<img src=http://example.org/in-code.png>", "")
        assert "<img" not in outside_code.lower() and "<iframe" not in outside_code and "![" not in outside_code
        assert '&lt;img src="http://tracker.example/raw.png">' in markdown  # shown as written, as text
        assert "[image](http://tracker.example/inline.png)" in markdown and "[image: logo](https://" in markdown
        assert "```html\n<img src=http://example.org/in-code.png>\n```" in markdown  # code is kept as written


def test_no_bidi_override_reaches_the_html_export_or_the_reply(home: Path) -> None:
    """Issue 34 §6: U+202E (right-to-left override) reached stdout and the HTML export."""
    from ensemble_tui.core.text.sanitize import strip_control

    hostile = "Pay \u202eoot 001$\u202c now, \u2066isolated\u2069, \u202dforced\u202c."
    assert strip_control(hostile) == "Pay oot 001$ now, isolated, forced."  # every reply goes through it
    workspace = a_chat(home, hostile)  # a chat saved before the override was stripped
    records = [stored.record for stored in workspace.archive.turns(workspace.session.id)]
    page = export_session(workspace.session, records, "html")
    assert not any(char in page for char in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def test_a_dangling_symlink_creates_no_folder_and_an_existing_file_keeps_its_mode(home: Path, tmp_path: Path) -> None:
    """Issue 34 §6: `export -o` through a dangling symlink created the missing folders, and an
    existing 0644 file became 0600."""
    workspace = a_chat(home)
    link = tmp_path / "latest.md"
    link.symlink_to(tmp_path / "missing" / "deeper" / "chat.md")
    code, _, err = export(workspace, str(link))
    assert code == 1 and err.count("\n") == 1 and "does not exist" in err
    assert not (tmp_path / "missing").exists()

    shared = tmp_path / "shared.md"
    shared.write_text("old")
    shared.chmod(0o644)
    assert export(workspace, str(shared))[0] == 0
    assert shared.read_text(encoding="utf-8") == expected(workspace)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644
