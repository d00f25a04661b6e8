"""With keys set, no file the app writes, no log line and no screen ever shows one."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator import Simulator
from ensemble_tui.simulator.script import Fault, ScriptedReply
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier
from tests.support import SleepRecorder, run_command
from tests.support import no_sleep as no_wait

KEYS = {
    "OPENAI_API_KEY": "sk-proj-SECRETopenai0123456789",
    "ANTHROPIC_API_KEY": "sk-ant-SECRETanthropic0123456789",
    "GEMINI_API_KEY": "AIzaSECRETgemini0123456789",
}


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator() as simulator:
        yield simulator


def scripted_faults(sim: Simulator) -> None:
    """Every kind of outcome, so error paths (which quote server messages) are exercised too."""
    sim.openai.push(Fault("bad_key"), ScriptedReply("fine"))
    sim.anthropic.push(Fault("server_error"), Fault("rate_limit", retry_after=0.01), ScriptedReply("fine"))
    sim.gemini.push(Fault("unknown_model"), ScriptedReply("fine"))


def leaks(text: str) -> list[str]:
    return [name for name, key in KEYS.items() if key in text or key[8:24] in text]


def assert_home_clean(home: Path) -> None:
    """Every file the app wrote (the user's own `.env` aside)."""
    for path in home.rglob("*"):
        if path.is_file() and path.name != ".env":
            content = path.read_bytes().decode("utf-8", errors="replace")
            assert leaks(content) == [], f"{path} holds a key"


def test_ask_with_keys_in_the_environment_and_in_dotenv(
    sim: Simulator, home: Path, tmp_path: Path, instant_retries: SleepRecorder
) -> None:
    scripted_faults(sim)
    home.mkdir(parents=True)
    (home / ".env").write_text(f"GEMINI_API_KEY={KEYS['GEMINI_API_KEY']}\n")
    env = {
        "HOME": str(tmp_path),
        **{k: v for k, v in sim.env.items() if not k.endswith("_KEY")},
        "OPENAI_API_KEY": KEYS["OPENAI_API_KEY"],
        "ANTHROPIC_API_KEY": KEYS["ANTHROPIC_API_KEY"],
    }
    outputs = []
    for mode in ("chatgpt", "all"):
        result = run_command(home, "ask", "--mode", mode, f"question {mode}", env=env)
        outputs.append(result.stdout + result.stderr)
    assert "OPENAI_API_KEY" in outputs[0]  # the bad key is named by its variable...
    assert all(leaks(output) == [] for output in outputs)  # ...never by its value
    assert_home_clean(home)
    assert len(instant_retries.delays) == 2  # Claude's server error and rate limit were retried


async def test_no_log_line_and_no_screen_shows_a_key(
    sim: Simulator, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    scripted_faults(sim)
    workspace = Workspace.open(home)
    providers, unavailable = build_providers(workspace, env={**sim.env, **KEYS})
    workspace.attach_providers(providers, unavailable)

    caplog.set_level(logging.DEBUG)
    engine = Engine(workspace, rng=random.Random(3), sleep=no_wait, timeout_s=5)
    app = EnsembleApp(workspace, engine=engine, notifier=RecordingNotifier())
    screens = []
    async with app.run_test(size=(120, 40)) as pilot:
        for key in ("f12", "f2", "f3", "f5"):
            await pilot.press(*"Does this leak?")
            await pilot.press(key)
            for _ in range(200):
                await pilot.pause(0.02)
                if not engine.running:
                    break
            screens.append(app.export_screenshot())
        for _ in range(6):  # every pane, Settings included
            await pilot.press("ctrl+pagedown")
            await pilot.pause()
            screens.append(app.export_screenshot())
    for provider in providers.values():
        screens.append(repr(provider))
    assert [leaks(screen) for screen in screens] == [[] for _ in screens]
    assert leaks(caplog.text) == []
    assert_home_clean(home)
