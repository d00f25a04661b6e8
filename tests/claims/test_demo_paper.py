"""The demo ships its paper: a demo chat without a PDF gets it, so plain `ask --demo` shows the
planted contradiction with ✓ on one side and ✗ on the other; `--pdf` still wins, and a chat whose
PDF the user removed stays without one."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ensemble_tui.bootstrap import attach_providers, demo_paper, use_demo_paper
from ensemble_tui.core.workspace import Workspace
from tests.support import run_command

REPO = Path(__file__).resolve().parents[2]


def demo_workspace(home: Path) -> Workspace:
    workspace = Workspace.open(home)
    workspace.demo = True
    return workspace


def test_plain_ask_demo_shows_the_planted_contradiction_with_its_marks(tmp_path, quick_demo):
    done = run_command(tmp_path / "home", "ask", "--demo", "--json", "What does the paper report?")
    assert done.returncode == 0, done.stderr
    turn = json.loads(done.stdout)
    disputed = turn["claims"][0]
    assert disputed["kind"] == "contradiction" and "87" in disputed["text"]
    assert disputed["stances"]["ChatGPT"]["evidence"]["found"] is True
    assert disputed["stances"]["ChatGPT"]["evidence"]["page"] == 1
    assert disputed["stances"]["Claude"]["evidence"]["found"] is False
    assert turn["confidence"] == "medium"


def test_a_demo_chat_without_a_pdf_gets_the_paper_and_so_does_a_new_chat(home):
    workspace = demo_workspace(home)
    use_demo_paper(workspace)
    assert workspace.session.pdf_path == str(demo_paper())
    assert Workspace.open(home).session.pdf_path == str(demo_paper())  # kept with the chat
    workspace.new_chat()
    assert workspace.session.pdf_path == str(demo_paper())


def test_a_removed_pdf_stays_removed_and_a_chosen_one_is_kept(home, sample_pdf):
    workspace = demo_workspace(home)
    use_demo_paper(workspace)
    workspace.clear_pdf()
    reopened = demo_workspace(home)  # the next `--demo`
    use_demo_paper(reopened)
    assert reopened.session.pdf_path is None

    reopened.select_pdf(sample_pdf)
    again = demo_workspace(home)
    use_demo_paper(again)
    assert again.session.pdf_path == str(sample_pdf)


def test_an_explicit_pdf_wins_over_the_demo_paper(tmp_path, quick_demo, sample_pdf):
    done = run_command(tmp_path / "home", "ask", "--demo", "--json", "--pdf", str(sample_pdf), "Which figure?")
    assert done.returncode == 0, done.stderr
    session = Workspace.open(tmp_path / "home").session
    assert session.pdf_path == str(sample_pdf)


def test_a_real_chat_never_gets_the_demo_paper(home):
    workspace = Workspace.open(home)  # not a demo
    attach_providers(workspace, {})
    assert workspace.session.pdf_path is None
    workspace.new_chat()
    assert workspace.session.pdf_path is None


def test_the_package_ships_the_demo_paper():
    """hatch puts every file of the package that git does not ignore in the wheel; the paper is
    there, not ignored, and the very file the tests read."""
    paper = demo_paper()
    assert paper.parent == REPO / "ensemble_tui" / "simulator"
    assert paper.read_bytes() == (REPO / "tests" / "data" / "sample.pdf").read_bytes()
    ignored = subprocess.run(["git", "check-ignore", "-q", str(paper)], cwd=REPO)
    assert ignored.returncode == 1  # 1: not ignored
