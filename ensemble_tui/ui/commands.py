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
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import SystemCommand
from textual.markup import escape
from textual.screen import Screen

from ensemble_tui.core.chat.modes import Mode, Style
from ensemble_tui.ui.bindings import ADDED_PROVIDER_KEYS, AUTO_HINT, HELP_KEY, STYLE_KEYS, key_name
from ensemble_tui.ui.panes import panes

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace
    from ensemble_tui.ui.actions.archive_flow import ArchiveFlow
    from ensemble_tui.ui.actions.pane_switching import PaneSwitching
    from ensemble_tui.ui.actions.pdf_actions import PdfActions
    from ensemble_tui.ui.actions.reply_actions import ReplyActions
    from ensemble_tui.ui.screens.report import ReportScreen
    from ensemble_tui.ui.turns.turn_controller import TurnController
    from ensemble_tui.ui.turns.turn_keys import TurnKeys


class PaletteHost(Protocol):
    """The app, as the palette sees it: its collaborators run each command."""

    workspace: Workspace
    turns: TurnController
    turn_keys: TurnKeys
    pdf_actions: PdfActions
    pane_switching: PaneSwitching
    archive_flow: ArchiveFlow
    reply_actions: ReplyActions

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...
    async def action_new_chat(self) -> None: ...
    def action_show_help(self) -> None: ...
    def action_show_claims(self) -> None: ...


def palette_commands(app: PaletteHost, screen: Screen[object] | None = None) -> Iterator[SystemCommand]:
    from ensemble_tui.core.records.export import FORMATS
    from ensemble_tui.ui.screens.export_picker import FORMAT_NAMES
    from ensemble_tui.ui.screens.report import ReportScreen

    yield SystemCommand(
        "Help: keys", f"Every key of the app, grouped ({key_name(HELP_KEY)} anywhere)", app.action_show_help
    )
    if isinstance(screen, ReportScreen):
        yield from report_commands(app, screen)
        return
    if screen is not None and screen is not app.screen_stack[0]:
        return  # a dialog is open: the main screen's commands wait until it closes
    yield SystemCommand("New chat", "Start a fresh chat; the current transcript stays in Chats/", app.action_new_chat)
    yield SystemCommand("Select PDF", "Choose the paper the models read", app.pdf_actions.choose)
    yield SystemCommand("Remove PDF", "Continue this chat without a paper", app.pdf_actions.clear)
    for mode in Mode:
        yield SystemCommand(
            f"Send with {mode.label}",
            AUTO_HINT
            if mode is Mode.AUTO
            else f"Ask {', '.join(mode.providers)} (an empty input redoes the last reply)",
            partial(app.turn_keys.send, mode.value),
        )
    for slot, provider in enumerate(app.workspace.extra_providers):
        key = f" ({key_name(ADDED_PROVIDER_KEYS[slot])})" if slot < len(ADDED_PROVIDER_KEYS) else ""
        yield SystemCommand(
            f"Send with {escape(provider)}",
            f"Ask {escape(provider)} alone{key}; an empty input redoes the last reply",
            partial(app.turn_keys.send, provider),
        )
    for style in Style:
        yield SystemCommand(
            f"Style: {style.label}",
            f"Deliberate this way from the next multi-model turn ({key_name(STYLE_KEYS[style])})",
            partial(app.turn_keys.choose_style, style),
        )
    yield from restyle_commands(app)
    yield SystemCommand("Cancel the run", "Stop the reply under way; nothing of it is kept", app.turns.cancel)
    for pane_id, label in panes(app.workspace.extra_providers):
        name = escape(label)
        yield SystemCommand(f"Show {name} pane", f"Switch to the {name} tab", partial(app.pane_switching.show, pane_id))
    yield SystemCommand(
        "Show run report",
        "Every call, answer, review and vote of this chat's runs (Ctrl+R)",
        app.archive_flow.show_report,
    )
    yield SystemCommand(
        "Compare the proposals",
        "The last run's answers side by side, with cost, tally and quote check (Ctrl+F)",
        app.archive_flow.show_compare,
    )
    yield SystemCommand(
        "Claims", "Where the last run's models agree and disagree, disputed first (F10)", app.action_show_claims
    )
    yield SystemCommand("Show history", "Reopen an earlier chat (Ctrl+G)", app.archive_flow.show_history)
    for fmt in FORMATS:
        yield SystemCommand(
            f"Export last run as {FORMAT_NAMES[fmt]}",
            "The report of this chat's latest run, into Exports/",
            partial(app.archive_flow.export_last_run, fmt),
        )
        yield SystemCommand(
            f"Export chat as {FORMAT_NAMES[fmt]}",
            "This chat's transcript and every run report, into Exports/",
            partial(app.archive_flow.export_chat, fmt),
        )
    replies = app.reply_actions
    yield SystemCommand("Copy last reply", "Copy the last final reply to the clipboard", replies.copy_last_reply)
    yield SystemCommand(
        "Copy the reply in view",
        "The reply scrolled to or under the mouse, as Markdown (Ctrl+T)",
        replies.copy_reply_in_view,
    )
    reply = replies.reply_in_view()
    if reply is not None:
        from ensemble_tui.core.text.code_blocks import fenced_blocks

        for index, block in enumerate(fenced_blocks(reply.text)):
            yield SystemCommand(
                f"Copy code block {index + 1}: {escape(block.title)}",
                "One code block of the reply in view, as written (a click on it copies it too)",
                partial(replies.copy_code_block, reply, index),
            )
    yield SystemCommand(
        "Show math as text or as LaTeX", "Switch between rendered and raw mathematics (Ctrl+L)", replies.toggle_math
    )
    yield SystemCommand("Open a link from the last reply", "Pick an http(s) link to open", replies.open_link)
    yield SystemCommand(
        "Open transcript folder", "Show Chats/, where every chat is kept as Markdown", replies.open_transcripts
    )
    yield SystemCommand("Show earlier messages", "Load older messages of a long chat", replies.show_earlier)


def restyle_commands(app: PaletteHost) -> Iterator[SystemCommand]:
    """ "Same turn as Council" and the like: the last turn again in each other style, from its
    proposals (ui/actions/restyle_actions.py); none when it cannot be restyled."""
    restyling = app.archive_flow.restyling
    found = restyling.source()
    if isinstance(found, str):
        return
    for style in restyling.other_styles():
        yield SystemCommand(
            f"Same turn as {style.label}",
            f"Reuse run {found.run}'s {escape(found.mode.label)} proposals; no proposer is asked again",
            partial(restyling.restyle, style),
        )


def report_commands(app: PaletteHost, screen: ReportScreen) -> Iterator[SystemCommand]:
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
            partial(app.archive_flow.export_chat, fmt),
        )
