"""Command palette entries (Ctrl+P): the action table's (ui/bindings.py), then those made per
added provider, pane, export format, restyle and code block.

They are system commands, so they sit beside Textual's own (Theme, Quit, Keys, ...) and show
when the palette opens with an empty search. Over the run report, the palette offers that
screen's exports instead: the main screen's commands must not run behind it. The palette reads
titles and help as markup, so provider labels (from configuration files) are escaped. The
report screen and the export formats are imported when the palette opens, not at start-up
(they bring the exporter, and with it markdown_it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.markup import escape
from textual.screen import Screen

from ensemble_tui.ui.bindings import ACTIONS, ADDED_PROVIDER_KEYS, HELP_ID, AppAction, auto_hint, shown_key
from ensemble_tui.ui.panes import panes

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace
    from ensemble_tui.ui.actions.archive_flow import ArchiveFlow
    from ensemble_tui.ui.actions.pane_switching import PaneSwitching
    from ensemble_tui.ui.actions.reply_actions import ReplyActions
    from ensemble_tui.ui.screens.report import ReportScreen
    from ensemble_tui.ui.turns.turn_keys import TurnKeys


@dataclass(frozen=True)
class Palette:
    """What the palette's commands call: the action table's runner (`run`, by action id), and
    the collaborators behind the commands made per added provider, pane, run or code block."""

    run: Callable[[str], None]
    keymap: Mapping[str, str]
    workspace: Workspace
    main_screen: Screen[object]
    turn_keys: TurnKeys
    pane_switching: PaneSwitching
    archive_flow: ArchiveFlow
    reply_actions: ReplyActions


def table_command(palette: Palette, action: AppAction) -> SystemCommand:
    """An action of the table as the palette shows it: its help, with its key as now mapped."""
    key = shown_key(action.id, palette.keymap)
    if action.id == "mode.auto":
        help_text = auto_hint(palette.keymap)
    else:
        help_text = f"{action.help} ({key})" if key else action.help
    assert action.palette is not None
    return SystemCommand(action.palette, help_text, partial(palette.run, action.id))


def palette_commands(palette: Palette, screen: Screen[object] | None = None) -> Iterator[SystemCommand]:
    from ensemble_tui.core.records.export import FORMATS
    from ensemble_tui.ui.screens.export_picker import FORMAT_NAMES
    from ensemble_tui.ui.screens.report import ReportScreen

    listed = [action for action in ACTIONS if action.palette is not None]
    yield from (table_command(palette, action) for action in listed if action.id == HELP_ID)
    if isinstance(screen, ReportScreen):
        yield from report_commands(palette, screen)
        return
    if screen is not None and screen is not palette.main_screen:
        return  # a dialog is open: the main screen's commands wait until it closes
    yield from (table_command(palette, action) for action in listed if action.id != HELP_ID)
    for slot, provider in enumerate(palette.workspace.extra_providers):
        key = shown_key(f"added.{slot + 1}", palette.keymap) if slot < len(ADDED_PROVIDER_KEYS) else ""
        yield SystemCommand(
            f"Send with {escape(provider)}",
            f"Ask {escape(provider)} alone{f' ({key})' if key else ''}; an empty input redoes the last reply",
            partial(palette.turn_keys.send, provider),
        )
    yield from restyle_commands(palette)
    for pane_id, label in panes(palette.workspace.extra_providers):
        name = escape(label)
        yield SystemCommand(
            f"Show {name} pane", f"Switch to the {name} tab", partial(palette.pane_switching.show, pane_id)
        )
    for fmt in FORMATS:
        yield SystemCommand(
            f"Export last run as {FORMAT_NAMES[fmt]}",
            "The report of this chat's latest run, into Exports/",
            partial(palette.archive_flow.export_last_run, fmt),
        )
        yield SystemCommand(
            f"Export chat as {FORMAT_NAMES[fmt]}",
            "This chat's transcript and every run report, into Exports/",
            partial(palette.archive_flow.export_chat, fmt),
        )
    replies = palette.reply_actions
    reply = replies.reply_in_view()
    if reply is not None:
        from ensemble_tui.core.text.code_blocks import fenced_blocks

        for index, block in enumerate(fenced_blocks(reply.text)):
            yield SystemCommand(
                f"Copy code block {index + 1}: {escape(block.title)}",
                "One code block of the reply in view, as written (a click on it copies it too)",
                partial(replies.copy_code_block, reply, index),
            )


def restyle_commands(palette: Palette) -> Iterator[SystemCommand]:
    """ "Same turn as Council" and the like: the last turn again in each other style, from its
    proposals (ui/actions/restyle_actions.py); none when it cannot be restyled."""
    restyling = palette.archive_flow.restyling
    found = restyling.source()
    if isinstance(found, str):
        return
    for style in restyling.other_styles():
        yield SystemCommand(
            f"Same turn as {style.label}",
            f"Reuse run {found.run}'s {escape(found.mode.label)} proposals; no proposer is asked again",
            partial(restyling.restyle, style),
        )


def report_commands(palette: Palette, screen: ReportScreen) -> Iterator[SystemCommand]:
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
            partial(palette.archive_flow.export_chat, fmt),
        )
