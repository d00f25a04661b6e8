"""The chat's choices for its next turn: the mode Enter sends with and the deliberation style.

One record, owned by the main screen (ui/main_screen.py) and shared with the turn controller
and the turn keys: the keys change it, a turn starts from it, the buttons and the status line
show it. A chat opens with the choices it was left with (`TurnKeys.restore_choices`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ensemble_tui.core.chat.modes import Mode, RunMode, Style


@dataclass
class TurnChoices:
    mode: RunMode = Mode.ALL  # Enter's mode: the last one used (or the chat's)
    style: Style = Style.AGGREGATE  # how the next multi-model turn deliberates
