"""The screen sizes the layout adapts to, as classes Textual sets on each screen (app.tcss).

An 80x24 terminal gets `-narrow -short`: the chat keeps its rows (one row of mode buttons, a
one-line question box that grows), and the buttons are sized to their labels. From 32 rows
(`-tall`) the buttons keep their borders; from 100 columns (`-wide`) they share the width.
"""

from __future__ import annotations

TALL_ROWS = 32
WIDE_COLUMNS = 100

HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] = [(0, "-narrow"), (WIDE_COLUMNS, "-wide")]
VERTICAL_BREAKPOINTS: list[tuple[int, str]] = [(0, "-short"), (TALL_ROWS, "-tall")]
