"""Terminal output is inert (issue 24 §6): a provider's error text with escapes reaches neither
`ask`'s stderr nor the log raw; pypdf's warnings go to the log; a broken provider file is said
once; a PDF over a provider's size limit is refused for its size, not with a budget message."""

from __future__ import annotations

import io
import logging
import os
from pathlib import Path

from ensemble_tui.commands.ask_turn import run_ask
from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.core.provider import ErrorKind, ProviderError
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.events import RunFailed
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.logs import LOG_FILE, configure_logging
from tests.core.helpers import of_type, run_turn
from tests.hardening.test_saved_means_saved import ensemble
from tests.support import ScriptedProvider, no_sleep

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b31m"


async def test_an_escape_in_a_providers_error_never_reaches_stderr_or_the_log(
    workspace: Workspace, tmp_path: Path
) -> None:
    hostile = ProviderError(ErrorKind.FATAL, f"ChatGPT: bad request {ESCAPES} end")
    workspace.attach_providers({"ChatGPT": ScriptedProvider("ChatGPT", scripts={"any": [hostile]})}, {})  # type: ignore[dict-item]
    out, err = io.StringIO(), io.StringIO()
    code = await run_ask(Engine(workspace, sleep=no_sleep), Mode.CHATGPT, Style.AGGREGATE, "Q", out, err)
    assert code == 1 and "bad request" in err.getvalue()
    assert not any(char in err.getvalue() for char in "\x1b\x07\x9b")

    root = logging.getLogger()
    handlers = list(root.handlers)
    configure_logging(tmp_path / "Logs")
    try:
        logging.getLogger("ensemble_tui.test").warning("provider said: %s", f"x {ESCAPES} y")
    finally:
        for handler in root.handlers[len(handlers) :]:
            handler.close()
        root.handlers[:] = handlers
    logged = (tmp_path / "Logs" / LOG_FILE).read_text(encoding="utf-8")
    assert "provider said: x" in logged and not any(char in logged for char in "\x1b\x07\x9b")


def test_pypdfs_warnings_go_to_the_log_not_to_stderr(home: Path, tmp_path: Path) -> None:
    sample = (Path(__file__).resolve().parents[1] / "data" / "sample.pdf").read_bytes()
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(sample[: sample.rfind(b"%%EOF")])
    # A process of its own (forked with the SDKs imported): pypdf's records reach its stderr, as
    # logging prints a record that no handler takes there; in here pytest's handlers would take them.
    run = ensemble(home, "ask", "--demo", "--mode", "chatgpt", "--pdf", str(truncated), "Q", forked=True)
    assert run.returncode == 0, run.stderr
    assert "EOF marker not found" not in run.stderr
    assert "EOF marker not found" in (home / "Logs" / LOG_FILE).read_text(encoding="utf-8")


def test_a_broken_provider_file_is_said_once(home: Path, quick_demo: None) -> None:
    assert ensemble(home, "ask", "--demo", "--mode", "chatgpt", "first", process=False).returncode == 0
    (home / "Configurations" / "Claude.json").write_text('{"label": "Claude", broken', encoding="utf-8")
    run = ensemble(home, "ask", "--demo", "--mode", "all", "second", process=False)
    assert run.returncode == 0, run.stderr
    assert sum("Claude.json" in line for line in run.stderr.splitlines()) == 1, run.stderr


async def test_a_pdf_over_claudes_limit_is_refused_for_its_size(workspace: Workspace, tmp_path: Path) -> None:
    huge = tmp_path / "huge.pdf"
    with huge.open("wb") as handle:  # sparse: 40 MB on paper, nothing on disk
        handle.write(b"%PDF-1.7\n")
        handle.truncate(40 * 1024 * 1024)
    workspace.settings.budget_usd = 1.0
    claude, chatgpt = ScriptedProvider("Claude", default="Answer."), ScriptedProvider("ChatGPT", default="Answer.")
    workspace.attach_providers({"Claude": claude, "ChatGPT": chatgpt}, {})  # type: ignore[dict-item]
    workspace.session.pdf_path = str(huge)
    [failed] = of_type(await run_turn(Engine(workspace, sleep=no_sleep), Mode.CLAUDE, "Q"), RunFailed)
    assert "40 MB" in failed.message and "32 MB" in failed.message, failed.message
    assert "spent" not in failed.message and not claude.calls
    assert os.path.getsize(huge) > 32 * 1024 * 1024
