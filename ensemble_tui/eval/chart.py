"""The report's one chart, as inline SVG: cost per question (x) against win rate with its
95% interval (y), one labelled point per arm. Plain shapes and text: it loads nothing.

The chart fills the page's column (it scales with its viewBox). Labels never overlap: one that
would cover another is moved down, with a thin line back to its point; the cost axis has "nice"
ticks (steps of 1, 2 or 5) printed with one precision."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 960, 420  # the page's column (max-width 60rem); scaled to it by the viewBox
LEFT, RIGHT, TOP, BOTTOM = 64, 190, 20, 48  # room for the axes' labels, and the points' on the right
TICKS = 4
LABEL_CHAR_W, LABEL_H = 7.0, 14.0  # a label's size at 11px bold, a little generous


@dataclass(frozen=True)
class Point:
    label: str
    cost: float  # dollars per question
    rate: float  # win rate against the reference; the reference itself sits at ½
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


def place_labels(anchors: list[tuple[float, float, str]]) -> list[tuple[float, float]]:
    """Where each label goes (its text's start and baseline): right of its point, moved down
    past any label already placed that it would cover. `anchors` are (x, y, text)."""
    placed: list[tuple[float, float, float, float]] = []  # x0, y0, x1, y1 of each label's box
    spots: list[tuple[float, float] | None] = [None] * len(anchors)
    for index in sorted(range(len(anchors)), key=lambda i: (anchors[i][1], anchors[i][0])):
        px, py, text = anchors[index]
        x0, width = px + 9, LABEL_CHAR_W * len(text)
        baseline = py + 4
        while any(
            x0 < bx1 and bx0 < x0 + width and baseline - LABEL_H + 3 < by1 and by0 < baseline + 3
            for bx0, by0, bx1, by1 in placed
        ):
            baseline += 2
        placed.append((x0, baseline - LABEL_H + 3, x0 + width, baseline + 3))
        spots[index] = (x0, baseline)
    return [spot for spot in spots if spot is not None]


def cost_chart(points: list[Point], title: str) -> str:
    """An `<svg>` element; every label is escaped (arm and provider names come from the user's files)."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    ticks, decimals = cost_ticks(max((point.cost for point in points), default=0.0))
    top_cost = ticks[-1]

    def x(cost: float) -> float:
        return LEFT + plot_w * cost / top_cost

    def y(rate: float) -> float:
        return TOP + plot_h * (1 - rate)

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" style="max-width: {WIDTH}px" role="img" '
        f'aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" class="frame"/>',
    ]
    for index in range(TICKS + 1):
        rate = index / TICKS
        parts.append(f'<line x1="{LEFT}" y1="{y(rate):.1f}" x2="{LEFT + plot_w}" y2="{y(rate):.1f}" class="grid"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y(rate) + 4:.1f}" text-anchor="end">{rate * 100:.0f}%</text>')
    for cost in ticks:
        label = f"${cost:.{decimals}f}"
        parts.append(f'<text x="{x(cost):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">{label}</text>')
    parts.append(f'<line x1="{LEFT}" y1="{y(0.5):.1f}" x2="{LEFT + plot_w}" y2="{y(0.5):.1f}" class="even"/>')
    parts.append(
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle">cost per question</text>'
        f'<text x="14" y="{TOP + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {TOP + plot_h / 2:.1f})">win rate against the reference</text>'
    )
    spots = place_labels([(x(point.cost), y(point.rate), point.label) for point in points])
    for point, (lx, ly) in zip(points, spots, strict=True):
        px, py = x(point.cost), y(point.rate)
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
            parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="5" class="point"/>')
        if ly - (py + 4) > 1:  # moved down: a thin line back to its point
            parts.append(
                f'<line x1="{px + 3:.1f}" y1="{py + 3:.1f}" x2="{lx - 1:.1f}" y2="{ly - 4:.1f}" class="frame"/>'
            )
        parts.append(f'<text x="{lx:.1f}" y="{ly:.1f}" class="label">{escape(point.label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
