"""The report: one line per benchmark row, and the notes that explain the figures."""

from __future__ import annotations

import math
from dataclasses import dataclass

HEADERS = ("row", "what", "measured", "baseline", "ratio", "goal", "result")


@dataclass(frozen=True)
class Row:
    key: str
    what: str
    measured: str
    baseline: str
    ratio: str
    goal: str
    result: str  # "pass", "FAIL", "info" (reported, no goal applies) or "error"
    note: str = ""

    def cells(self) -> tuple[str, ...]:
        return (self.key, self.what, self.measured, self.baseline, self.ratio, self.goal, self.result)


def verdict(ok: bool) -> str:
    return "pass" if ok else "FAIL"


def seconds(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f} s"


def millis(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value * 1000:.1f} ms"


def ratio(measured: float, baseline: float) -> str:
    if math.isnan(measured) or math.isnan(baseline) or baseline <= 0:
        return "n/a"
    return f"{measured / baseline:.3f}"


def error_row(key: str, what: str, error: BaseException) -> Row:
    message = str(error).splitlines()[0] if str(error) else type(error).__name__
    return Row(key, what, "-", "-", "-", "-", "error", f"{type(error).__name__}: {message[:200]}")


def render(rows: list[Row]) -> str:
    """A plain-text table (fixed-width columns), then the notes, numbered by row."""
    widths = [max(len(header), *(len(row.cells()[i]) for row in rows)) for i, header in enumerate(HEADERS)]
    lines = [
        "  ".join(header.ljust(width) for header, width in zip(HEADERS, widths, strict=True)),
        "  ".join("-" * width for width in widths),
    ]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(row.cells(), widths, strict=True)) for row in rows]
    notes = [f"  {row.key}: {row.note}" for row in rows if row.note]
    if notes:
        lines += ["", "notes:", *notes]
    return "\n".join(line.rstrip() for line in lines)
