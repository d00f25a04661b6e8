"""Model panes, Resubmissions, Attachments (with the PDF dialog) and the restored session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Footer
from textual_fspicker import FileOpen

from ensemble_tui.core.chat.session import ChatMessage, ModelOutput, Resubmission
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.chat_log.chat_view import BATCH, ChatEntry, ChatNotice, EarlierButton
from ensemble_tui.ui.panes import pane_id_for_provider
from ensemble_tui.ui.panes.lazy import LazyPane
from ensemble_tui.ui.panes.model import ModelPane
from ensemble_tui.ui.panes.resubmissions import ResubmissionEntry
from ensemble_tui.ui.panes.settings import SettingsPane
from tests.ui.conftest import SIZE, key_in_play, settle, show_pane, type_text, wait_until
from tests.ui.test_layout import footer_line


def pane_text(pane: ModelPane, selector: str) -> str:
    return str(pane.query_one(selector).content)


async def test_model_panes_show_each_proposal_and_its_query_never_the_aggregator(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["aggregator"] = ["FINAL REPLY:\nAGGREGATED TEXT"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "What is new?")
        await pilot.press("f5")
        await settle(pilot)
        for provider in ("ChatGPT", "Claude", "Gemini"):
            pane = app.main.model_pane(provider)
            assert pane.output is not None
            assert pane.output.text == f"{provider} answer" and pane.output.query == "What is new?"
        assert "AGGREGATED" not in app.main.model_pane("ChatGPT").output.text
        await pilot.press("ctrl+pagedown")
        assert app.main.tabs.active == "chatgpt"
        await wait_until(pilot, lambda: app.focused is app.main.model_pane("ChatGPT"))  # mounted when first shown
        for provider in ("ChatGPT", "Claude", "Gemini"):
            await show_pane(pilot, pane_id_for_provider(provider))
            assert pane_text(app.main.model_pane(provider), ".model-query") == "What is new?"


async def test_a_single_mode_only_updates_its_own_pane(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Only Claude")
        await pilot.press("f2")
        await settle(pilot)
        assert app.main.model_pane("Claude").output is not None
        assert app.main.model_pane("ChatGPT").output is None
        await show_pane(pilot, "chatgpt")
        assert "No output from ChatGPT yet" in pane_text(app.main.model_pane("ChatGPT"), ".model-output")


async def test_resubmissions_are_logged_newest_last(workspace, chatty, make_app):
    chatty["ChatGPT"].scripts["aggregator"] = [
        "REQUEST SYNTHESIS FROM PROPOSERS\nRemark one",
        "REQUEST SYNTHESIS FROM PROPOSERS\nRemark two",
        "FINAL REPLY:\nDone",
    ]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Deliberate")
        await pilot.press("f5")
        await settle(pilot)
        await pilot.press("ctrl+pageup", "ctrl+pageup")  # the second waits for the first's pane (ui/key_order.py)
        await wait_until(pilot, lambda: app.main.tabs.active == "resubmissions")
        await wait_until(pilot, lambda: app.main.resubmissions.is_mounted)  # mounted when first shown
        await pilot.pause()
        logged = [entry.item for entry in app.main.resubmissions.query(ResubmissionEntry)]
        assert [r.iteration for r in logged] == [1, 2]
        assert "Remark one" in logged[0].text and "Remark two" in logged[1].text
        assert logged == workspace.session.resubmissions


async def test_pdf_flag_preselects_and_shows_size_and_pages(workspace, chatty, make_app, sample_pdf):
    app = make_app(pdf=sample_pdf)
    async with app.run_test(size=SIZE) as pilot:
        await show_pane(pilot, "attachments")
        info = str(app.query_one("#pdf-info").content)
        assert str(sample_pdf) in info or sample_pdf.name in info
        assert "KB" in info or "bytes" in info
        assert "pages" in info.lower()
        assert workspace.session.pdf_path == str(sample_pdf.resolve())
        assert chatty["ChatGPT"].prepared == [sample_pdf.resolve()]


async def test_a_file_that_is_not_a_pdf_is_refused_with_a_clear_message(workspace, chatty, make_app, tmp_path):
    fake = tmp_path / "notes.pdf"
    fake.write_text("just text")
    app = make_app(pdf=fake)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "is not a PDF" in app.main.attachments.error_text
        assert workspace.session.pdf_path is None
        await show_pane(pilot, "attachments")
        assert str(app.query_one("#pdf-info").content) == "No PDF selected."


async def test_a_missing_pdf_from_the_last_session_is_reported(workspace, chatty, make_app, sample_pdf):
    workspace.select_pdf(sample_pdf)
    sample_pdf.unlink()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "no longer exists" in app.main.attachments.error_text
        assert any("no longer exists" in str(n.content) for n in app.query(ChatNotice))


async def test_select_pdf_dialog_accepts_a_typed_path_and_remove_clears_it(workspace, chatty, make_app, sample_pdf):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, FileOpen))
        assert app.main.tabs.active == "chat"  # the dialog opens over the pane in use
        assert not key_in_play(app, "mode.all")  # main-screen keys are off under the dialog
        dialog_input = app.screen.query_one("Input")
        dialog_input.focus()
        dialog_input.value = str(sample_pdf)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, FileOpen))
        await pilot.pause()
        assert workspace.session.pdf_path == str(sample_pdf.resolve())
        assert app.main.tabs.active == "chat"  # back where the dialog was opened
        await show_pane(pilot, "attachments")
        assert sample_pdf.name in str(app.query_one("#pdf-info").content)
        await pilot.click("#clear-pdf")
        await pilot.pause()
        assert workspace.session.pdf_path is None


async def test_select_pdf_button_opens_the_dialog_and_escape_closes_it(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await show_pane(pilot, "attachments")
        await pilot.click("#select-pdf")
        await wait_until(pilot, lambda: isinstance(app.screen, FileOpen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, FileOpen))
        assert workspace.session.pdf_path is None


def long_history(turns: int) -> list[ChatMessage]:
    history: list[ChatMessage] = []
    for index in range(turns):
        history.append(ChatMessage(role="user", text=f"Question {index}"))
        history.append(ChatMessage(role="assistant", text=f"Reply {index}\n\n```python\nprint({index})\n```"))
    return history


async def test_the_previous_session_is_restored_lazily(workspace, chatty, make_app):
    workspace.session.history = long_history(30)
    workspace.session.last_outputs = {"Gemini": ModelOutput(query="Q", text="Old Gemini text", model="gemini-x")}
    workspace.session.resubmissions = [Resubmission(iteration=1, text="Old request")]
    workspace.session.last_mode = "claude"
    workspace.session.cost_usd = 1.25
    workspace.store.save(workspace.session)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = list(app.query(ChatEntry))
        assert len(shown) == BATCH and shown[-1].message.text.startswith("Reply 29")
        assert app.main.chat.log_view.hidden_count == 60 - BATCH
        assert app.main.choices.mode.value == "claude"
        assert app.main.model_pane("Gemini").output.text == "Old Gemini text"
        assert "$1.25" in app.main.chat.status.shown.cost.plain
        await show_pane(pilot, "resubmissions")
        assert len(app.main.resubmissions.query(ResubmissionEntry)) == 1
        await show_pane(pilot, "chat")
        app.main.chat.log_view.scroll_home(animate=False)
        await pilot.pause()
        await pilot.click(EarlierButton)
        await pilot.pause()
        assert len(app.query(ChatEntry)) == 2 * BATCH
        app.main.reply_actions.show_earlier()
        await pilot.pause()
        assert len(app.query(ChatEntry)) == 60 and not app.query(EarlierButton)
        # A new reply still lands at the end.
        app.main.chat.input.focus()
        await type_text(pilot, "One more")
        await pilot.press("enter")
        await settle(pilot)
        texts = [e.message.text for e in app.query(ChatEntry)]
        assert texts[-2:] == ["One more", "Claude answer"]


@pytest.mark.first_frames
async def test_a_pane_chosen_in_the_first_frames_opens_with_the_focus_in_it(workspace, chatty, make_app):
    workspace.session.last_outputs = {"Claude": ModelOutput(query="Q", text="Earlier Claude text", model="m")}
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.main.show_pane("settings")  # at once: the pane is still waiting for its mount
        await wait_until(pilot, lambda: bool(app.query(SettingsPane)) and app.focused is not None)
        assert app.main.tabs.active == "settings"
        assert app.focused is app.main.settings_pane, "the focus is in the pane shown"
        await pilot.pause(0.2)
        assert app.main.tabs.active == "settings", "nothing took the view away"
        await show_pane(pilot, pane_id_for_provider("Claude"))
        assert "Earlier Claude text" in app.export_screenshot().replace("&#160;", " ")


async def test_a_pane_is_mounted_when_first_shown_by_a_key_or_a_click_on_its_tab(workspace, chatty, make_app):
    workspace.session.last_outputs = {"Gemini": ModelOutput(query="Q", text="Earlier Gemini text", model="m")}
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        assert len(app.query(LazyPane)) == 6, "no pane but the chat is mounted at start"
        await pilot.click("#--content-tab-settings")
        await wait_until(pilot, lambda: app.main.settings_pane.is_mounted and app.focused is not None)
        assert app.main.tabs.active == "settings" and app.focused is app.main.settings_pane
        await pilot.press("ctrl+pagedown")  # the next pane: the first after Settings is the Chat
        await wait_until(pilot, lambda: app.main.tabs.active == "chat" and app.focused is app.main.chat.input)
        await pilot.click(f"#--content-tab-{pane_id_for_provider('Gemini')}")
        await wait_until(pilot, lambda: app.main.model_pane("Gemini").is_mounted)
        await pilot.pause()
        assert "Earlier Gemini text" in app.export_screenshot().replace("&#160;", " ")
        assert len(app.query(LazyPane)) == 4, "the panes never shown are still waiting"


@pytest.mark.first_frames
async def test_a_pane_shown_right_after_another_stays_shown(workspace, chatty, make_app):
    """Two pane switches handled before the first one's focus change ran (Ctrl+PageUp twice,
    the second handled while the first pane's focus waited in the queue, as under load): the
    second pane stays shown. The first's late focus landed in a hidden pane, and TabbedContent
    shows the pane that holds the focus, so the user was sent back to the first."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await show_pane(pilot, "settings")  # mounted once: showing it again focuses it at once
        await show_pane(pilot, "chat")
        app.main.show_pane("settings")
        app.main.show_pane("resubmissions")
        await wait_until(pilot, lambda: app.main.resubmissions.is_mounted)
        await pilot.pause()
        assert app.main.tabs.active == "resubmissions"
        assert app.focused is None or app.main.resubmissions in app.focused.ancestors_with_self


async def test_the_footer_shows_the_keys_as_the_keymap_has_them_and_the_first_frame_focuses_the_question_box(
    workspace, chatty, make_app, monkeypatch
):
    (workspace.paths.configurations / "Keymap.json").write_text(json.dumps({"history.open": "f12"}))
    app = make_app()
    focused_in_first_frame: list[object] = []
    display = EnsembleApp._display  # where Textual hands each frame to the terminal

    def recording_display(self: EnsembleApp, screen: Any, renderable: Any) -> None:
        if not focused_in_first_frame:
            focused_in_first_frame.append(self.focused)
        display(self, screen, renderable)

    monkeypatch.setattr(EnsembleApp, "_display", recording_display)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(app.query_one(Footer).children))
        await pilot.pause()
        question_box = app.main.chat.input
        footer = footer_line(app)
    assert focused_in_first_frame == [question_box]
    assert "f12 History" in footer and "^g" not in footer


async def test_the_work_after_start_up_runs_even_if_the_footer_never_gets_its_keys(
    workspace, chatty, make_app, monkeypatch
):
    monkeypatch.setattr(Footer, "compose", lambda self: iter(()))
    calls: list[bool] = []
    app = make_app(after_start_up=lambda: calls.append(True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(calls))
        assert not app.query_one(Footer).children


@pytest.mark.first_frames
async def test_the_work_left_for_after_start_up_runs_once_after_the_first_frame(workspace, chatty, make_app):
    footer_shown_at_each_call: list[bool] = []
    app = make_app(after_start_up=lambda: footer_shown_at_each_call.append(bool(app.query_one(Footer).children)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(footer_shown_at_each_call))
        await pilot.pause(0.2)
    assert footer_shown_at_each_call == [True]


async def test_a_failure_after_start_up_is_one_line_and_the_app_goes_on(workspace, chatty, make_app):
    def fail() -> None:
        raise OSError("Address already in use")

    app = make_app(after_start_up=fail)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any(n.kind == "error" for n in app.query(ChatNotice)))
        errors = [str(n.content) for n in app.query(ChatNotice) if n.kind == "error"]
        assert errors == ["✖ Start-up did not finish: Address already in use. Restart ensemble-tui if turns fail."]
        await type_text(pilot, "Still there?")
        await pilot.press("f12")
        await settle(pilot)
        assert workspace.session.history[-1].text == "ChatGPT answer"


@pytest.mark.first_frames
async def test_quitting_in_the_first_frames_is_clean(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+q")
    assert app.return_code == 0


async def test_start_up_warnings_are_shown_once(workspace, chatty, make_app):
    workspace.warnings.append("Settings.json has invalid values; kept as Settings.json.broken, defaults in use.")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        warnings = [str(n.content) for n in app.query(ChatNotice) if n.kind == "warning"]
        assert warnings == ["⚠ Settings.json has invalid values; kept as Settings.json.broken, defaults in use."]
        await type_text(pilot, "Q")
        await pilot.press("f12")
        await settle(pilot)
        assert len([n for n in app.query(ChatNotice) if n.kind == "warning"]) == 1


async def test_new_chat_clears_the_panes_and_keeps_the_old_transcript(workspace, chatty, make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "Before")
        await pilot.press("f12")
        await settle(pilot)
        old = workspace.store.transcript_path(workspace.session)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert not app.query(ChatEntry)
        assert workspace.session.history == []
        assert app.main.model_pane("ChatGPT").output is None
        assert old.exists() and Path(old).read_text().count("Before") == 1
        assert workspace.session.id in app.sub_title


async def test_the_attachments_hint_names_the_paper_a_new_demo_chat_starts_with(
    workspace, chatty, make_app, sample_pdf
):
    """Issue 35, polish: the pane said "a new chat starts without one" where a new demo chat
    starts with the demo's paper."""
    workspace.starting_pdf = sample_pdf
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await show_pane(pilot, "attachments")
        shown = str(app.query_one("#attachments-pane .pane-hint").content)
        assert f"a new chat starts with {sample_pdf.name}" in shown and "without one" not in shown


async def test_the_chat_names_its_paper_and_follows_a_change(workspace, chatty, make_app, sample_pdf, tmp_path):
    """Issue 35 polish: the chat never named the loaded PDF. Its first line does (file name and
    pages), as plain text, within 80 columns; a chat without a paper has no such line."""
    from ensemble_tui.core.paper.pdf import pdf_info

    odd = tmp_path / "[red]results of a very long study of attention in many languages and many models, 2026.pdf"
    odd.write_bytes(sample_pdf.read_bytes())
    pages = pdf_info(sample_pdf).pages
    app = make_app(pdf=sample_pdf)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        line = app.query_one("#chat-paper")
        assert app.main.chat.paper_text.startswith(f"Paper: {sample_pdf.name} · {pages} page")
        assert line.region.width <= 80 and line.region.height == 1
        app.main.pdf_actions.select(odd)
        await pilot.pause()
        assert app.main.chat.paper_text.startswith("Paper: [red]results of a very long study")  # markup inert
        assert line.region.height == 1  # cut with "…" rather than wrapped
        app.main.pdf_actions.clear()
        await pilot.pause()
        assert app.main.chat.paper_text == "" and not line.display
