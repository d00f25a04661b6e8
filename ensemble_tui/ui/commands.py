"""Command palette entries (Ctrl+P) for every action of the app.

They are system commands, so they sit beside Textual's own (Theme, Quit, Keys, ...) and show
when the palette opens with an empty search. Over the run report, the palette offers that
screen's exports instead: the main screen's commands must not run behind it. The palette reads
titles and help as markup, so provider labels (from configuration files) are escaped. The
report screen and the export formats are imported when the palette opens, not at start-up
(they bring the exporter, and with it markdown_it).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.markup import escape
from textual.screen import Screen

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.ui.bindings import ADDED_PROVIDER_KEYS, STYLE_KEYS, key_name
from ensemble_tui.ui.panes import panes

if TYPE_CHECKING:
    from ensemble_tui.ui.app import EnsembleApp
    from ensemble_tui.ui.screens.report import ReportScreen


def palette_commands(app: EnsembleApp, screen: Screen[object] | None = None) -> Iterator[SystemCommand]:
    from ensemble_tui.core.records.export import FORMATS
    from ensemble_tui.ui.screens.export_picker import FORMAT_NAMES
    from ensemble_tui.ui.screens.report import ReportScreen

    if isinstance(screen, ReportScreen):
        yield from report_commands(app, screen)
        return
    if screen is not None and screen is not app.screen_stack[0]:
        return  # a dialog is open: the main screen's commands wait until it closes
    yield SystemCommand("New chat", "Start a fresh chat; the current transcript stays in Chats/", app.action_new_chat)
    yield SystemCommand("Select PDF", "Choose the paper the models read", app.action_select_pdf)
    yield SystemCommand("Remove PDF", "Continue this chat without a paper", app.action_clear_pdf)
    for mode in Mode:
        yield SystemCommand(
            f"Send with {mode.label}",
            f"Ask {', '.join(mode.providers)} (an empty input redoes the last reply)",
            partial(app.action_send, mode.value),
        )
    for slot, provider in enumerate(app.workspace.extra_providers):
        key = f" ({key_name(ADDED_PROVIDER_KEYS[slot])})" if slot < len(ADDED_PROVIDER_KEYS) else ""
        yield SystemCommand(
            f"Send with {escape(provider)}",
            f"Ask {escape(provider)} alone{key}; an empty input redoes the last reply",
            partial(app.action_send, provider),
        )
    for style in Style:
        yield SystemCommand(
            f"Style: {style.label}",
            f"Deliberate this way from the next multi-model turn ({key_name(STYLE_KEYS[style])})",
            partial(app.choose_style, style),
        )
    yield SystemCommand("Cancel the run", "Stop the reply under way; nothing of it is kept", app.action_cancel_run)
    for pane_id, label in panes(app.workspace.extra_providers):
        name = escape(label)
        yield SystemCommand(f"Show {name} pane", f"Switch to the {name} tab", partial(app.action_show_pane, pane_id))
    yield SystemCommand(
        "Show run report", "Every call, answer, review and vote of this chat's runs (Ctrl+R)", app.action_show_report
    )
    yield SystemCommand(
        "Compare the proposals",
        "The last run's answers side by side, with cost, tally and quote check (Ctrl+F)",
        app.action_show_compare,
    )
    yield SystemCommand("Show history", "Reopen an earlier chat (Ctrl+G)", app.action_show_history)
    for fmt in FORMATS:
        yield SystemCommand(
            f"Export last run as {FORMAT_NAMES[fmt]}",
            "The report of this chat's latest run, into Exports/",
            partial(app.action_export_last_run, fmt),
        )
        yield SystemCommand(
            f"Export chat as {FORMAT_NAMES[fmt]}",
            "This chat's transcript and every run report, into Exports/",
            partial(app.action_export_chat, fmt),
        )
    yield SystemCommand("Copy last reply", "Copy the last final reply to the clipboard", app.action_copy_last_reply)
    yield SystemCommand(
        "Copy the reply in view",
        "The reply scrolled to or under the mouse, as Markdown (Ctrl+T)",
        app.action_copy_reply_in_view,
    )
    reply = app.reply_in_view()
    if reply is not None:
        from ensemble_tui.core.text.code_blocks import fenced_blocks

        for index, block in enumerate(fenced_blocks(reply.text)):
            yield SystemCommand(
                f"Copy code block {index + 1}: {escape(block.title)}",
                "One code block of the reply in view, as written (a click on it copies it too)",
                partial(app.copy_code_block, reply, index),
            )
    yield SystemCommand(
        "Show math as text or as LaTeX", "Switch between rendered and raw mathematics (Ctrl+L)", app.action_toggle_math
    )
    yield SystemCommand("Open a link from the last reply", "Pick an http(s) link to open", app.action_open_link)
    yield SystemCommand(
        "Open transcript folder", "Show Chats/, where every chat is kept as Markdown", app.action_open_transcripts
    )
    yield SystemCommand("Show earlier messages", "Load older messages of a long chat", app.action_show_earlier)


def report_commands(app: EnsembleApp, screen: ReportScreen) -> Iterator[SystemCommand]:
    """Exports of the run shown and of the whole chat, as the report screen's `e` offers."""
    from ensemble_tui.core.records.export import FORMATS
    from ensemble_tui.ui.screens.export_picker import FORMAT_NAMES, ExportChoice
    from ensemble_tui.ui.screens.report import ReportScreen

    for fmt in FORMATS:
        yield SystemCommand(
            f"Export this run as {FORMAT_NAMES[fmt]}",
            "The report shown, into Exports/",
            lambda fmt=fmt: screen.post_message(  # type: ignore[misc]
                ReportScreen.ExportRequested(ExportChoice("run", fmt), screen.record, screen.index + 1)
            ),
        )
        yield SystemCommand(
            f"Export chat as {FORMAT_NAMES[fmt]}",
            "This chat's transcript and every run report, into Exports/",
            partial(app.action_export_chat, fmt),
        )
