"""The report's chart, as inline SVG: cost per question (x) against a score with its 95%
interval (y), one labelled point per arm. The same chart serves the pairwise report (win rate
against the reference) and the graded one (accuracy against the known answers). Plain shapes
and text: it loads nothing.

The SVG is as wide as the page's column and scales with it (width 100% of a viewBox), so the
plot spans the column and the labels, placed in the viewBox's units by label_place, stay clear
of every point and of each other at any width. A plot too crowded for every name shows numbers
for some, and a key under the axis names them. The cost axis has "nice" ticks (steps of 1, 2
or 5) printed with one precision."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

from ensemble_tui.eval.label_place import Box, Marker, place_labels, text_width

WIDTH, HEIGHT = 800, 380  # the viewBox: drawn at the column's width (60rem at most, 1.2 of these units)
LEFT, RIGHT, TOP, BOTTOM = 60, 24, 28, 48  # room for the axes' ticks and titles, and a label above 100%
TICKS = 4
FONT = 12.0  # the ticks' and labels' size, in viewBox units (about 14px in a full 60rem column, 11px at 740px)
LABEL_H = FONT * 1.2  # a label's box: from its ascenders to its descenders, with a little room
BASELINE = FONT * 0.9  # from the box's top to the text's baseline
TICK_Y = HEIGHT - BOTTOM + 19  # the cost ticks' baseline: room between them and the axis for a label at 0%
KEY_LINE = FONT * 1.4  # a line of the key under the axis, for a label that found no room in the plot
DOT_R, DIAMOND_R = 5.0, 7.1  # a point's half size: a dot's radius, the reference diamond's half diagonal


@dataclass(frozen=True)
class Point:
    label: str
    cost: float  # dollars per question
    score: float  # the win rate against the reference (which sits at ½), or the accuracy
    low: float | None = None  # the interval; None for the reference
    high: float | None = None
    reference: bool = False


def cost_ticks(highest: float) -> tuple[list[float], int]:
    """The cost axis's ticks (from 0, a step of 1, 2 or 5 x 10^k, past `highest`) and the one
    number of decimals they are all printed with (two at least)."""
    if highest <= 0:
        return [0.0, 1.0], 0
    rough = highest * 1.1 / TICKS
    power = 10 ** math.floor(math.log10(rough))
    step = next(factor * power for factor in (1, 2, 5, 10) if factor * power >= rough)
    count = math.ceil(highest * 1.05 / step)
    decimals = max(2, -math.floor(math.log10(step) + 1e-9))  # cents at least: these are dollars
    return [round(step * index, decimals + 2) for index in range(count + 1)], decimals


def label_box(x: float, baseline: float, text: str) -> Box:
    """The box a label drawn at (x, baseline) takes: what no point or other label may enter."""
    return Box(x, baseline - BASELINE, x + text_width(text, FONT), baseline - BASELINE + LABEL_H)


def cost_chart(
    points: list[Point], title: str, score_title: str, even: float | None = None, cost_title: str = "cost per question"
) -> str:
    """An `<svg>` element; every label is escaped (arm and provider names come from the user's files).
    `even` draws a dashed line at that score (a win rate's even match)."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    ticks, decimals = cost_ticks(max((point.cost for point in points), default=0.0))
    top_cost = ticks[-1]

    def x(cost: float) -> float:
        return LEFT + plot_w * cost / top_cost

    def y(score: float) -> float:
        return TOP + plot_h * (1 - score)

    tick_boxes = []
    for cost in ticks:
        half = text_width(f"${cost:.{decimals}f}", FONT) / 2
        tick_boxes.append(Box(x(cost) - half, TICK_Y - FONT * 0.8, x(cost) + half, TICK_Y + FONT * 0.25))
    markers = [_marker(point, x, y) for point in points]
    bounds = Box(LEFT + 1, 1, WIDTH - 1, TOP + plot_h + FONT)  # the plot and its margins; the ticks are avoided
    guides = [y(index / TICKS) for index in range(TICKS + 1)] + ([y(even)] if even is not None else [])
    placements = place_labels(
        markers,
        [point.label for point in points],
        lambda text: text_width(text, FONT),
        LABEL_H,
        bounds,
        avoid=tick_boxes,
        guides=guides,
    )
    key = [(placement.text, point.label) for point, placement in zip(points, placements, strict=True)]
    key = sorted(((number, label) for number, label in key if number != label), key=lambda item: int(item[0]))
    height = HEIGHT + KEY_LINE * len(key)

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" width="100%" font-size="{FONT:g}" role="img" '
        f'aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" class="frame"/>',
    ]
    for index in range(TICKS + 1):
        score = index / TICKS
        parts.append(f'<line x1="{LEFT}" y1="{y(score):.1f}" x2="{LEFT + plot_w}" y2="{y(score):.1f}" class="grid"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y(score) + 4:.1f}" text-anchor="end">{score * 100:.0f}%</text>')
    for cost in ticks:
        label = f"${cost:.{decimals}f}"
        parts.append(f'<text x="{x(cost):.1f}" y="{TICK_Y}" text-anchor="middle">{label}</text>')
    if even is not None:
        parts.append(f'<line x1="{LEFT}" y1="{y(even):.1f}" x2="{LEFT + plot_w}" y2="{y(even):.1f}" class="even"/>')
    parts.append(
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle">{escape(cost_title)}</text>'
        f'<text x="14" y="{TOP + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {TOP + plot_h / 2:.1f})">{escape(score_title)}</text>'
    )
    for point, marker in zip(points, markers, strict=True):
        parts += _point(point, marker, y)
    for placement in placements:  # over every point's bar: a leader, then its label with a white halo
        if placement.leader is not None:  # moved away from its point: a thin line back to it
            x0, y0, x1, y1 = placement.leader
            parts.append(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" class="leader"/>')
    for placement in placements:
        box = placement.box
        parts.append(
            f'<text x="{box.x0:.1f}" y="{box.y0 + BASELINE:.1f}" class="label">{escape(placement.text)}</text>'
        )
    for row, (number, label) in enumerate(key):
        baseline = HEIGHT + KEY_LINE * row + BASELINE
        parts.append(f'<text x="{LEFT}" y="{baseline:.1f}" class="key">{escape(number)}: {escape(label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _marker(point: Point, x: Callable[[float], float], y: Callable[[float], float]) -> Marker:
    bar = None
    if point.low is not None and point.high is not None:
        bar = Box(x(point.cost) - 4, y(point.high), x(point.cost) + 4, y(point.low))
    return Marker(x(point.cost), y(point.score), DIAMOND_R if point.reference else DOT_R, bar)


def _point(point: Point, marker: Marker, y: Callable[[float], float]) -> list[str]:
    px, py = marker.x, marker.y
    parts = []
    if point.low is not None and point.high is not None:
        low, high = y(point.low), y(point.high)
        parts.append(f'<line x1="{px:.1f}" y1="{low:.1f}" x2="{px:.1f}" y2="{high:.1f}" class="bar"/>')
        for end in (low, high):
            parts.append(f'<line x1="{px - 4:.1f}" y1="{end:.1f}" x2="{px + 4:.1f}" y2="{end:.1f}" class="bar"/>')
    if point.reference:
        parts.append(
            f'<rect x="{px - 5:.1f}" y="{py - 5:.1f}" width="10" height="10" class="reference" '
            f'transform="rotate(45 {px:.1f} {py:.1f})"/>'
        )
    else:
        parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="{DOT_R:g}" class="point"/>')
    return parts
