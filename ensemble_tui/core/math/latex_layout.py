"""Rows of text laid out as blocks for display math: matrix cells in columns, brackets as tall
as what they enclose (⎛ ⎜ ⎝), blocks side by side on a shared middle row."""

from __future__ import annotations

import unicodedata

# Top, middle, bottom, filler pieces of a bracket taller than one row.
_TALL = {
    "(": "⎛⎜⎝⎜",
    ")": "⎞⎟⎠⎟",
    "[": "⎡⎢⎣⎢",
    "]": "⎤⎥⎦⎥",
    "{": "⎧⎨⎩⎪",
    "}": "⎫⎬⎭⎪",
    "|": "││││",
    "‖": "‖‖‖‖",
    "⌊": "│││⌊",
    "⌋": "│││⌋",
    "⌈": "⌈││|",
    "⌉": "⌉│││",
}
_TWO_ROWS = {"{": "⎧⎩", "}": "⎫⎭", "⌊": "│⌊", "⌋": "│⌋", "⌈": "⌈│", "⌉": "⌉│"}


def cells(text: str) -> int:
    """Terminal columns of `text` (combining accents take none)."""
    if text.isascii():
        return len(text)
    return len(text) - sum(1 for char in text if unicodedata.combining(char))


class Box:
    """Lines of equal width; its middle line is the one that lines up with text beside it.

    A plain class, not a dataclass: the converter is imported when the first reply with math is
    drawn, and a dataclass's generated methods cost that import ~0.3 ms (bench row 2.c)."""

    __slots__ = ("lines",)

    def __init__(self, lines: list[str]) -> None:
        widths = [cells(line) for line in lines]
        widest = max(widths, default=0)
        self.lines = [line + " " * (widest - width) for line, width in zip(lines, widths, strict=True)] or [""]

    def __repr__(self) -> str:
        return f"Box({self.lines!r})"

    @property
    def height(self) -> int:
        return len(self.lines)

    @property
    def width(self) -> int:
        return cells(self.lines[0])


def delimiter_column(char: str, height: int) -> Box:
    """`char` drawn `height` rows tall; nothing for an empty delimiter (`\\left.`)."""
    if not char:
        return Box([""] * height)
    if height == 1 or char not in _TALL:  # a symbol with no tall form sits on the middle row
        above = (height - 1) // 2
        return Box([" "] * above + [char] + [" "] * (height - above - 1))
    if height == 2:
        pair = _TWO_ROWS.get(char, _TALL[char][0] + _TALL[char][2])
        return Box([pair[0], pair[1]])
    top, middle, bottom, fill = _TALL[char]
    rows = [fill] * height
    rows[0], rows[-1] = top, bottom
    if char in "{}":
        rows[(height - 1) // 2] = middle
    else:
        rows[1:-1] = [middle] * (height - 2)
    return Box(rows)


def hstack(boxes: list[Box]) -> Box:
    """Boxes side by side, centred on the tallest one's middle row."""
    height = max((box.height for box in boxes), default=1)
    lines = [""] * height
    for box in boxes:
        above = (height - box.height) // 2
        blank = " " * box.width
        for row in range(height):
            inside = above <= row < above + box.height
            lines[row] += box.lines[row - above] if inside else blank
    return Box([line.rstrip() for line in lines] if height > 1 else lines)


def layout_rows(rows: list[list[str]], align: str, gap: str) -> list[str]:
    """Rows of cells in columns. `align` is "c" (centred), "l" (left) or "rl" (alternating right
    and left, as `aligned` sets `x &= y`)."""
    columns = max((len(row) for row in rows), default=0)
    widths = [max((cells(row[i]) for row in rows if i < len(row)), default=0) for i in range(columns)]
    lines = []
    for row in rows:
        parts = []
        for index, column_width in enumerate(widths):
            cell = row[index] if index < len(row) else ""
            pad = column_width - cells(cell)
            how = align[index % len(align)]
            if how == "r":
                parts.append(" " * pad + cell)
            elif how == "c":
                parts.append(" " * (pad // 2) + cell + " " * (pad - pad // 2))
            else:
                parts.append(cell + " " * pad)
        lines.append(gap.join(parts).rstrip())
    return lines
