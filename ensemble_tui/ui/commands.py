"""Command palette entries (Ctrl+P) for every action of the app.

They are system commands, so they sit beside Textual's own (Theme, Quit, Keys, ...) and show
when the palette opens with an empty search.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from ensemble_tui.core.modes import Mode
from ensemble_tui.ui.panes import PANES

if TYPE_CHECKING:
    from ensemble_tui.ui.app import EnsembleApp


def palette_commands(app: EnsembleApp) -> Iterator[SystemCommand]:
    yield SystemCommand("New chat", "Start a fresh chat; the current transcript stays in Chats/", app.action_new_chat)
    yield SystemCommand("Select PDF", "Choose the paper the models read", app.action_select_pdf)
    yield SystemCommand("Remove PDF", "Continue this chat without a paper", app.action_clear_pdf)
    for mode in Mode:
        yield SystemCommand(
            f"Send with {mode.label}",
            f"Ask {', '.join(mode.providers)} (an empty input redoes the last reply)",
            partial(app.action_send, mode.value),
        )
    yield SystemCommand("Cancel the run", "Stop the reply under way; nothing of it is kept", app.action_cancel_run)
    for pane_id, label in PANES:
        yield SystemCommand(f"Show {label} pane", f"Switch to the {label} tab", partial(app.action_show_pane, pane_id))
    yield SystemCommand("Copy last reply", "Copy the last final reply to the clipboard", app.action_copy_last_reply)
    yield SystemCommand("Open a link from the last reply", "Pick an http(s) link to open", app.action_open_link)
    yield SystemCommand(
        "Open transcript folder", "Show Chats/, where every chat is kept as Markdown", app.action_open_transcripts
    )
    yield SystemCommand("Show earlier messages", "Load older messages of a long chat", app.action_show_earlier)
