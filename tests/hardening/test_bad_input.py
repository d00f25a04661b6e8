"""Bad input: each gets one clear line naming the file and the fix; the app keeps working."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.store import atomic
from ensemble_tui.core.store.home import seed_home
from ensemble_tui.core.turn.events import Notice, ReplyCommitted, RunFailed
from ensemble_tui.core.workspace import Workspace
from tests.core.helpers import of_type, restored_session, run_turn
from tests.support import run_command


def one_line(message: str) -> str:
    assert "\n" not in message and "Traceback" not in message
    return message


def test_half_written_settings_are_set_aside(home: Path) -> None:
    paths = seed_home(home)
    paths.settings_file.write_text('{"models": {"ChatGPT": "gpt-5"}, "temperature": 1.')
    workspace = Workspace.open(home)
    (warning,) = workspace.warnings
    assert "Settings.json is not valid JSON" in one_line(warning) and "defaults in use" in warning
    assert workspace.settings.temperature == 0.7


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"label": "Claude", "default_model": "x", "models": [{"id": "x", "input": "cheap"}]}', "models.0.input"),
        ('{"label": "Claude", "models": []}', "default_model"),
        ("[1, 2", "not valid JSON"),
    ],
    ids=["wrong-type", "missing-field", "truncated"],
)
async def test_a_broken_configuration_costs_only_its_provider(home, make_engine, content, expected) -> None:
    from tests.support import ScriptedProvider

    paths = seed_home(home)
    (paths.configurations / "Claude.json").write_text(content)
    workspace = Workspace.open(home)
    (warning,) = [w for w in workspace.warnings if "Claude.json" in w]
    assert expected in one_line(warning) and ("fix it or delete it" in warning)
    workspace.attach_providers(
        {label: ScriptedProvider(label, default="ok") for label in workspace.configs},
        {},  # type: ignore[misc]
    )
    from ensemble_tui.core.turn.engine import Engine

    engine = Engine(workspace, sleep=make_engine().sleep)
    events = await run_turn(engine, Mode.CLAUDE, "q")
    assert "Claude.json" in one_line(of_type(events, RunFailed)[0].message)
    events = await run_turn(engine, Mode.ALL, "q2")  # the others still answer
    assert of_type(events, ReplyCommitted)


@pytest.mark.parametrize("damage", ["directory", "not-utf8"])
async def test_an_unreadable_prompt_file_is_named(workspace, scripted, make_engine, damage) -> None:
    path = workspace.paths.prompts / "AggregatorUserPrompt.txt"
    path.unlink()
    if damage == "directory":
        path.mkdir()
    else:
        path.write_bytes(b"\xff\xfe\x00bad")
    events = await run_turn(make_engine(), Mode.ALL, "q")
    message = one_line(of_type(events, RunFailed)[0].message)
    assert str(path) in message and "cannot be read" in message
    assert all(provider.calls == [] for provider in scripted.values())


@pytest.mark.parametrize(
    ("content", "expected"),
    [(b"", "is not a PDF"), (b"<html>not a pdf</html>", "is not a PDF"), (None, "no longer exists")],
    ids=["zero-bytes", "html", "deleted"],
)
def test_bad_pdfs_are_refused_when_chosen(workspace, tmp_path, content, expected) -> None:
    from ensemble_tui.core.errors import PdfError

    path = tmp_path / "paper.pdf"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(PdfError) as caught:
        workspace.select_pdf(path)
    assert expected in one_line(str(caught.value)) and "paper.pdf" in str(caught.value)
    assert workspace.session.pdf_path is None


async def test_a_pdf_replaced_mid_session_by_something_else_stops_the_turn(
    workspace, scripted, make_engine, sample_pdf
) -> None:
    workspace.select_pdf(sample_pdf)
    sample_pdf.write_text("now a text file")
    events = await run_turn(make_engine(), Mode.CHATGPT, "q")
    assert "is not a PDF" in one_line(of_type(events, RunFailed)[0].message)
    assert scripted["ChatGPT"].calls == []


def test_an_unwritable_home_folder_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where a folder should be")
    result = run_command(blocker / "home", "ask", "q", env={"HOME": str(tmp_path)}, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"ensemble-tui: Cannot set up the home folder {blocker / 'home'} (Not a directory) - choose another with --home"
    )


async def test_a_full_disk_while_writing_the_transcript_keeps_the_reply_and_the_session(
    workspace, scripted, make_engine, monkeypatch
) -> None:
    scripted["Gemini"].scripts["proposer"] = ["Saved before the disk filled.", "Shown although the disk is full."]
    engine = make_engine()
    await run_turn(engine, Mode.GEMINI, "first")
    real_write = atomic.atomic_write_text

    def full_disk(path: Path, text: str) -> None:
        if path.suffix == ".md":
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real_write(path, text)

    monkeypatch.setattr("ensemble_tui.core.store.session_store.atomic_write_text", full_disk)
    events = await run_turn(engine, Mode.GEMINI, "second")
    assert of_type(events, ReplyCommitted)[0].text == "Shown although the disk is full."
    notice = one_line(of_type(events, Notice)[-1].message)
    assert "No space left on device" in notice and ".md" in notice and "free space" in notice
    transcript = (workspace.paths.chats / f"{workspace.session.id}.md").read_text()
    assert "Saved before the disk filled." in transcript  # the old transcript is whole
    restored = restored_session(workspace.paths.root)  # the archive took the turn before the transcript failed
    assert [m.text for m in restored.history][-2:] == ["second", "Shown although the disk is full."]


@pytest.mark.parametrize("value", ["Infinity", "-Infinity", "NaN", "1e999"])
def test_a_budget_that_is_not_a_number_is_one_line_and_the_cap_holds(home: Path, value: str) -> None:
    """Issue 34 §6: `"budget_usd": Infinity` made every turn fail with an OverflowError."""
    paths = seed_home(home)
    paths.settings_file.write_text('{"budget_usd": ' + value + ', "temperature": 0.3}')
    workspace = Workspace.open(home)
    (warning,) = workspace.warnings
    assert "invalid budget_usd" in one_line(warning) and "every other setting kept" in warning
    assert workspace.settings.budget_usd == 5.0 and workspace.settings.temperature == 0.3
    with pytest.raises(ValueError, match="finite"):
        workspace.settings.budget_usd = float("inf")


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        ("2026-10-30", None),  # more than 30 days before: nothing to say yet
        ("2026-11-27", "Claude: claude-sonnet-4-5 retires on 2026-11-30; its replacement is claude-sonnet-4-6"),
        ("2026-11-30", "Claude: claude-sonnet-4-5 was retired on 2026-11-30; claude-sonnet-4-6 is used instead"),
    ],
)
def test_a_retiring_model_names_its_replacement_and_a_retired_one_falls_back(
    home: Path, monkeypatch: pytest.MonkeyPatch, day: str, expected: str | None
) -> None:
    """Issue 34 §6: claude-sonnet-4-5 retires on 2026-11-30. From 30 days before, the start (and so
    `ask`) names the replacement; after, one line, and the provider's default model is used."""
    from datetime import date

    from ensemble_tui.core import config

    monkeypatch.setattr(config, "today", lambda: date.fromisoformat(day))
    paths = seed_home(home)
    paths.settings_file.write_text('{"models": {"Claude": "claude-sonnet-4-5"}}')
    workspace = Workspace.open(home)
    lines = [line for line in workspace.warnings if "claude-sonnet-4-5" in line]
    if expected is None:
        assert lines == [] and workspace.model_for("Claude") == "claude-sonnet-4-5"
        return
    (line,) = lines
    assert one_line(line).startswith(expected)
    retired = day >= "2026-11-30"
    assert workspace.model_for("Claude") == ("claude-sonnet-4-6" if retired else "claude-sonnet-4-5")
    assert workspace.settings.models["Claude"] == "claude-sonnet-4-5"  # the choice is kept, as written
