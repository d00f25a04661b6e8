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


def size_classes(width: int, height: int) -> str:
    """The classes Textual gives a screen of `width` x `height` cells from the breakpoints above
    (for each axis, the class of the largest breakpoint not above the size).

    The app's screen is made with them: Textual sets them only when the screen's first Resize
    arrives, after the first layout, and the change restyled the whole screen (~30 ms of CPU at
    load 10) and changed the buttons' sizes, a further layout pass of the whole screen, before
    the first complete frame. Textual's resize then finds them set and changes nothing."""
    classes = [
        max((point, name) for point, name in breakpoints if size >= point)[1]
        for size, breakpoints in ((width, HORIZONTAL_BREAKPOINTS), (height, VERTICAL_BREAKPOINTS))
    ]
    return " ".join(classes)
