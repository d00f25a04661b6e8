"""The first minutes: with no API key the app says which keys are missing and how to try it
without any; a mode that cannot run is refused before the question enters the chat; retries
are shown while they wait."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from textual.widgets import Static

from ensemble_tui.bootstrap import attach_providers
from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.chat_log.chat_view import ChatNotice
from ensemble_tui.ui.widgets.action_bar import ModeButton
from tests.support import transient
from tests.ui.conftest import SIZE, settle, show_pane, type_text, wait_until


def notices(app) -> list[str]:
    return [str(notice.content) for notice in app.query(ChatNotice)]


async def test_with_no_keys_one_line_names_them_and_the_demo_and_keyless_modes_are_refused(workspace, make_app):
    attach_providers(workspace, {})  # the real registry, an environment without any key
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        (line,) = [text for text in notices(app) if "No API key" in text]
        for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
            assert variable in line
        assert "ensemble-tui --demo" in line
        assert f"in the environment or in {workspace.paths.root / '.env'}" in line  # where the keys go
        assert len(notices(app)) == 1  # one line, not one per provider
        buttons = {button.mode: button for button in app.query(ModeButton)}
        assert all(button.has_class("-unavailable") for button in buttons.values())

        await type_text(pilot, "Does Lemma 2 need compactness?")
        await pilot.press("f2")
        await settle(pilot)
        assert app.main.turns.turn is None and app.main.chat.log_view.items == []  # the question never entered the chat
        assert app.main.chat.input.text == "Does Lemma 2 need compactness?"
        assert any("ANTHROPIC_API_KEY" in text for text in notices(app)[1:])


@pytest.fixture
def local_without_url(home):
    """An added provider, enabled, whose configuration names its key but no base_url."""
    seeded = Workspace.open(home)
    config = {"label": "Local", "protocol": "openai-chat", "enabled": True, "key_env": ["LOCAL_KEY"]}
    config |= {"default_model": "m1", "models": [{"id": "m1"}]}
    (seeded.paths.configurations / "Local.json").write_text(json.dumps(config))


async def test_a_provider_whose_key_is_set_but_not_its_url_is_told_only_to_set_its_url(
    local_without_url, workspace, make_app
):
    """The line once added "(set LOCAL_KEY)" to a reason that did not name the key, so a user
    whose key was set was told to set it."""
    attach_providers(workspace, {"LOCAL_KEY": "sk-local"})
    async with make_app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        lines = notices(pilot.app)
        assert "⚠ Local is unavailable: set base_url in Local.json" in lines
        assert not any("LOCAL_KEY" in line for line in lines)
        await show_pane(pilot, "settings")  # the Settings pane says it in the same words
        warning = pilot.app.main.query_one("#nokey-Local", Static)
        assert str(warning.content) == "⚠ Local is unavailable: set base_url in Local.json"


async def test_a_mode_whose_provider_has_a_key_still_runs_beside_ones_that_do_not(workspace, chatty, make_app):
    workspace.unavailable["Claude"] = "Claude is unavailable: set ANTHROPIC_API_KEY in the environment or in ~/.env"
    del workspace.providers["Claude"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        buttons = {button.mode: button for button in app.query(ModeButton)}
        assert buttons[Mode.CLAUDE].has_class("-unavailable") and not buttons[Mode.CHATGPT].has_class("-unavailable")
        assert not buttons[Mode.ALL].has_class("-unavailable")  # All runs without Claude, and says so
        await type_text(pilot, "Still works?")
        await pilot.press("f12")
        await wait_until(pilot, lambda: app.main.turns.turn is None and len(app.main.chat.log_view.items) == 2)


async def test_the_status_line_says_while_a_call_waits_to_be_retried(workspace, chatty, make_app):
    release = asyncio.Event()

    async def held(_seconds: float) -> None:
        await release.wait()

    chatty["ChatGPT"].scripts["proposer"] = [transient("ChatGPT"), "After one retry."]
    app = make_app(engine=Engine(workspace, rng=random.Random(7), sleep=held))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Is the bound tight?")
        await pilot.press("f12")
        await wait_until(pilot, lambda: "retry" in app.main.chat.status.retry)
        assert app.main.chat.status.retry.startswith("ChatGPT: retry 1 of 5 in ")
        assert app.main.chat.status.retry.endswith(" s (server error)")
        release.set()
        await wait_until(pilot, lambda: app.main.turns.turn is None and len(app.main.chat.log_view.items) == 2)


async def test_an_untrusted_folder_line_is_in_the_chat_as_well_as_on_stderr(tmp_path, monkeypatch, capsys):
    """Started in a cloned repository (it holds Prompts/ and Configurations/), the app uses the
    user's own home and says why; the line printed before the app took the terminal was hidden
    by its screen, so the chat shows it too."""
    from ensemble_tui.bootstrap import build_app, open_workspace
    from ensemble_tui.ui.notify import RecordingNotifier

    clone = tmp_path / "clone"
    (clone / "Prompts").mkdir(parents=True)
    (clone / "Configurations").mkdir()
    monkeypatch.chdir(clone)
    monkeypatch.delenv("ENSEMBLE_TUI_HOME", raising=False)
    workspace = open_workspace(None)
    attach_providers(workspace, {})
    said = capsys.readouterr().err
    assert "but is not trusted" in said and "ensemble-tui trust ." in said
    app = build_app(workspace, notifier=RecordingNotifier())
    async with app.run_test(size=SIZE):
        (line,) = [text for text in notices(app) if "is not trusted" in text]
        assert line.removeprefix("⚠ ") in said
