"""The report's one chart, as inline SVG: cost per question (x) against win rate with its
95% interval (y), one labelled point per arm. Plain shapes and text: it loads nothing."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 64, 150, 20, 48  # room for the axes' labels, and the points' on the right
TICKS = 4


@dataclass(frozen=True)
class Point:
    label: str
    cost: float  # dollars per question
    rate: float  # win rate against the reference; the reference itself sits at ½
    low: float | None = None  # the interval; None for the reference
    high: float | None = None
    reference: bool = False


def _money(value: float) -> str:
    return f"${value:.3f}" if value < 0.1 else f"${value:.2f}"


def cost_chart(points: list[Point], title: str) -> str:
    """An `<svg>` element; every label is escaped (arm and provider names come from the user's files)."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top_cost = max((point.cost for point in points), default=0.0) * 1.15 or 1.0

    def x(cost: float) -> float:
        return LEFT + plot_w * cost / top_cost

    def y(rate: float) -> float:
        return TOP + plot_h * (1 - rate)

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" class="frame"/>',
    ]
    for index in range(TICKS + 1):
        rate = index / TICKS
        parts.append(f'<line x1="{LEFT}" y1="{y(rate):.1f}" x2="{LEFT + plot_w}" y2="{y(rate):.1f}" class="grid"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y(rate) + 4:.1f}" text-anchor="end">{rate * 100:.0f}%</text>')
        cost = top_cost * index / TICKS
        parts.append(f'<text x="{x(cost):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">{_money(cost)}</text>')
    parts.append(f'<line x1="{LEFT}" y1="{y(0.5):.1f}" x2="{LEFT + plot_w}" y2="{y(0.5):.1f}" class="even"/>')
    parts.append(
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle">cost per question</text>'
        f'<text x="14" y="{TOP + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {TOP + plot_h / 2:.1f})">win rate against the reference</text>'
    )
    for point in points:
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
        parts.append(f'<text x="{px + 9:.1f}" y="{py + 4:.1f}" class="label">{escape(point.label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
