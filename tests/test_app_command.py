"""The app command (`ensemble-tui` alone): providers attached inside the simulator context, the
app run, logging to a file; the collector held during start-up."""

from __future__ import annotations

import gc
import logging
from contextlib import contextmanager

import pytest

from ensemble_tui import bootstrap
from ensemble_tui.cli import main
from ensemble_tui.commands import app, ask
from ensemble_tui.logs import LOG_FILE
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import SystemNotifier


@pytest.fixture
def root_logging():
    """Undo what configure_logging does to the root logger."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in root.handlers[:]:
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def test_launch_attaches_providers_in_the_simulator_context_and_runs_the_app(
    workspace, monkeypatch, sample_pdf, root_logging
):
    seen: dict[str, object] = {}

    class FakeStandby:
        env = {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}

        def start(self) -> None:
            seen["started"] = True

    @contextmanager
    def fake_simulator(demo: bool, home=None):
        seen["demo"] = demo
        seen["home"] = home
        yield FakeStandby()
        seen["closed"] = True

    def fake_attach(ws, env, pdf=None, *, prepare=True):
        seen["env"] = env
        seen["prepare"] = prepare
        ws.attach_providers({}, {"ChatGPT": "no key", "Claude": "no key", "Gemini": "no key"})

    def fake_run(self: EnsembleApp) -> None:
        seen["app"] = self
        seen["closed_while_running"] = "closed" in seen

    monkeypatch.setattr(bootstrap, "demo_on_standby", fake_simulator)
    monkeypatch.setattr(bootstrap, "attach_providers", fake_attach)
    monkeypatch.setattr(EnsembleApp, "run", fake_run)
    assert main(["--home", str(workspace.paths.root), "--pdf", str(sample_pdf), "--demo"]) == 0
    app = seen["app"]
    assert isinstance(app, EnsembleApp) and app.demo and app.main.initial_pdf == str(sample_pdf)
    assert isinstance(app.notifier, SystemNotifier)
    assert seen["env"] == {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}
    assert seen["home"] == workspace.paths.root  # the demo account is kept in the home, nowhere else
    assert seen["closed_while_running"] is False and seen["closed"] is True
    assert "started" not in seen  # the app starts the simulator after its first frame
    assert seen["prepare"] is False  # and the PDF's uploads (their imports slowed the first frame)
    app._after_start_up()
    assert seen["started"]
    log_file = workspace.paths.logs / LOG_FILE
    logging.getLogger("ensemble_tui.test").warning("written to the log file, not the terminal")
    assert "written to the log file" in log_file.read_text()


def test_a_missing_part_of_the_install_is_one_line(workspace, monkeypatch, capsys, root_logging):
    def broken(demo: bool, home=None):
        raise ModuleNotFoundError("No module named 'ensemble_tui.simulator'", name="ensemble_tui.simulator")

    monkeypatch.setattr(bootstrap, "demo_on_standby", broken)
    assert main(["--home", str(workspace.paths.root), "--demo"]) == 2
    assert capsys.readouterr().err.strip() == (
        "ensemble-tui: this install lacks ensemble_tui.simulator - reinstall ensemble-tui."
    )


def test_only_the_app_starts_without_automatic_garbage_collection():
    with bootstrap.collector_hold(app.NEEDS.owns_process):
        assert not gc.isenabled()
    assert gc.isenabled()
    with bootstrap.collector_hold(ask.NEEDS.owns_process):
        assert gc.isenabled()


def test_a_pdf_path_that_is_not_there_or_not_a_pdf_is_refused_before_the_app_starts(
    workspace, monkeypatch, capsys, tmp_path
):
    """As `ask` refuses it: one line, exit 2, the terminal never taken. The app used to start
    and say the PDF "no longer exists", as if a file it once had had gone."""
    started: list[EnsembleApp] = []
    monkeypatch.setattr(EnsembleApp, "run", lambda self: started.append(self))
    missing = tmp_path / "nothere.pdf"
    assert main(["--home", str(workspace.paths.root), "--pdf", str(missing)]) == 2
    assert started == []
    assert capsys.readouterr().err.strip() == (
        f"ensemble-tui: the PDF {missing} does not exist - check the path given to --pdf"
    )
    notes = tmp_path / "notes.pdf"
    notes.write_text("not a pdf at all")
    assert main(["--home", str(workspace.paths.root), "--pdf", str(notes)]) == 2
    assert started == []
    assert capsys.readouterr().err.strip() == (
        "ensemble-tui: notes.pdf is not a PDF (it does not start with %PDF-) - select a PDF file"
    )
