"""One upload per PDF per chat across `ask` runs, and `ensemble-tui files` / `--prune`, end to end:
the command line's entry point, the real SDKs, the loopback simulator (and the demo's own).
`files` runs once as a process of its own (the list; forked with the SDKs imported: tests/forked.py);
the rest run in this process, the demo without its pauses."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.store.upload_registry import UploadRegistry, utc_now
from ensemble_tui.simulator import Fault, Simulator
from tests.support import run_command

NAMES = ("openai", "anthropic", "gemini")


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator() as simulator:
        yield simulator


def run(home: Path, *args: str, sim: Simulator | None = None, forked: bool = False) -> subprocess.CompletedProcess[str]:
    """In this process unless `forked` (tests.support.run_command)."""
    return run_command(home, *args, env=sim.env if sim else None, forked=forked)


def registry_of(home: Path) -> tuple[RunArchive, UploadRegistry]:
    archive = RunArchive(home / "History.sqlite3")
    return archive, UploadRegistry(archive)


def test_two_ask_turns_in_one_chat_make_one_upload_per_provider(sim, home, sample_pdf):
    first = run(home, "ask", "--pdf", str(sample_pdf), "What is Lemma 2?", sim=sim)
    assert first.returncode == 0, first.stderr
    second = run(home, "ask", "And Lemma 3?", sim=sim)
    assert second.returncode == 0, second.stderr
    for name in NAMES:
        script = sim.scripts[name]
        assert len(script.uploads) == 1, name
        (held,) = script.stored
        # every call reads the paper, except the claim map's, which reads only the proposals
        reading = [call for call in script.calls if "You map the claims" not in call.text]
        assert reading and all(call.file_ids == (held.id,) for call in reading), name
    archive, registry = registry_of(home)
    assert sorted(item.provider for item in registry.all()) == ["ChatGPT", "Claude", "Gemini"]
    archive.close()


def test_files_lists_the_uploads(sim, home, sample_pdf):
    assert run(home, "ask", "--pdf", str(sample_pdf), "Q?", sim=sim).returncode == 0
    result = run(home, "files", sim=sim, forked=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["PROVIDER", "FILE", "SIZE", "AGE", "CHATS", "STATE", "ID"]
    rows = {line.split()[0]: line for line in lines[1:4]}
    assert sorted(rows) == ["ChatGPT", "Claude", "Gemini"]
    size = f"{sample_pdf.stat().st_size / 1024:.1f} KB"
    for name, label in zip(NAMES, ("ChatGPT", "Claude", "Gemini"), strict=True):
        row = rows[label]
        assert "paper.pdf" in row and size in row and "in use" in row
        assert sim.scripts[name].stored[0].id in row
    assert "expires in 7 d" in rows["ChatGPT"] and "expires in 48 h" in rows["Gemini"]
    total = f"{3 * sample_pdf.stat().st_size / 1024:.1f} KB"
    assert lines[4] == f"3 uploads, {total}; 0 unused (`ensemble-tui files --prune` deletes them)."
    # the list is checked against the providers' own
    assert all(any(r.endpoint == "file_list" for r in sim.scripts[name].requests) for name in NAMES)


def test_files_strikes_off_what_the_provider_no_longer_has(sim, home, sample_pdf):
    assert run(home, "ask", "--pdf", str(sample_pdf), "Q?", sim=sim).returncode == 0
    sim.gemini.expire_files()
    result = run(home, "files", sim=sim)
    assert "Gemini" not in result.stdout and "2 uploads" in result.stdout


def test_prune_deletes_only_what_no_chat_uses(sim, home, sample_pdf, tmp_path):
    other = tmp_path / "other.pdf"
    other.write_bytes(sample_pdf.read_bytes() + b"\n% revised\n")
    assert run(home, "ask", "--pdf", str(sample_pdf), "Q?", sim=sim).returncode == 0
    assert run(home, "ask", "--pdf", str(other), "Q again?", sim=sim).returncode == 0  # same chat, new PDF
    result = run(home, "files", "--prune", sim=sim)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("Deleted 3 uploads (")
    for name in NAMES:
        (deleted,) = sim.scripts[name].deletes
        (held,) = sim.scripts[name].stored
        assert held.filename == "other.pdf" and held.id not in deleted.path
    assert "3 uploads" in result.stdout and "0 unused" in result.stdout


def test_a_refused_delete_is_reported_in_one_line(sim, home, sample_pdf, tmp_path):
    other = tmp_path / "other.pdf"
    other.write_bytes(sample_pdf.read_bytes() + b"\n% revised\n")
    assert run(home, "ask", "--pdf", str(sample_pdf), "Q?", sim=sim).returncode == 0
    assert run(home, "ask", "--pdf", str(other), "Q again?", sim=sim).returncode == 0
    sim.openai.push_delete(Fault("server_error"))
    result = run(home, "files", "--prune", sim=sim)
    assert result.returncode == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("ensemble-tui: ChatGPT did not delete an uploaded PDF (")
    assert "Deleted 2 uploads" in result.stdout and "1 unused" in result.stdout


def test_ask_cleans_up_stale_uploads_beside_its_turn(sim, home, sample_pdf, tmp_path):
    other = tmp_path / "other.pdf"
    other.write_bytes(sample_pdf.read_bytes() + b"\n% revised\n")
    assert run(home, "ask", "--pdf", str(sample_pdf), "Q?", sim=sim).returncode == 0
    archive, registry = registry_of(home)
    for item in registry.all():  # the first PDF was last sent 8 days ago
        registry.used(item.provider, item.file_id, item.uses[0].session, utc_now() - timedelta(days=8))
    archive.close()
    sim.anthropic.push_delete(Fault("server_error"))
    result = run(home, "ask", "--new", "--pdf", str(other), "--mode", "chatgpt", "New chat?", sim=sim)
    assert result.returncode == 0 and result.stdout.strip()
    assert [len(sim.scripts[name].deletes) for name in NAMES] == [1, 1, 1]
    refusals = [line for line in result.stderr.splitlines() if "did not delete" in line]
    assert len(refusals) == 1 and refusals[0].startswith("ensemble-tui: Claude did not delete")


def test_two_demo_turns_keep_one_upload_per_provider(home, sample_pdf, quick_demo):
    """`--demo` starts its simulator afresh in each command; its account keeps the uploads."""
    assert run(home, "ask", "--demo", "--pdf", str(sample_pdf), "Q?").returncode == 0
    assert run(home, "ask", "--demo", "Again?").returncode == 0
    assert not (home.parent / ".local/share/ensemble-tui/demo-provider-files.json").exists()  # nothing outside the home
    account = json.loads((home / "demo-provider-files.json").read_text())
    assert {name: len(files) for name, files in account.items()} == {name: 1 for name in NAMES}
    archive, registry = registry_of(home)
    ids = {item.provider: item.file_id for item in registry.all()}
    archive.close()
    assert ids["ChatGPT"] == account["openai"][0]["id"] and ids["Claude"] == account["anthropic"][0]["id"]
    assert ids["Gemini"] == f"files/{account['gemini'][0]['id']}"
    listed = run(home, "files", "--demo")
    assert listed.returncode == 0, listed.stderr
    assert "3 uploads" in listed.stdout and "0 unused" in listed.stdout
