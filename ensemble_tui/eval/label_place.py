"""Where a chart's point labels go: each label clear of every marker and every other label.

Greedy and deterministic. Each label tries the spots touching its marker (right, left, above,
below, then the corners), then rings further out, and takes the cheapest spot that covers no
marker, no placed label and no placed leader line, and stays inside the bounds. A displaced
label gets a leader line to its marker; the line crosses no other label or marker (but one its
point lies on). Error bars and lines running along a grid line only cost: a label may lie over
a bar when no clear spot is near. Greedy results depend on who chooses first, so a few orders
are tried and the cheapest layout kept. A label with no room at all becomes a number.

Text widths are estimates from DejaVu Sans Bold's advances, the widest of the usual sans
fonts, so a label rendered in a narrower font leaves a little room to spare. The geometry is
in the chart's own units, so it holds at whatever width the chart is drawn.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

NARROW = set("ijlIJfrt'\"`/\\|,.:;-!()[]{}_* ")  # at most half an em in DejaVu Sans Bold
WIDE = set("mwMW%@")  # up to 1.1 em
PLAIN = set("abcdeghknopqsuvxyz0123456789$?")  # at most 0.72 em
BAR_COST = 25.0  # a label or leader over an error bar is worth this much distance (labels have a halo)
CROSSING_COST = 200.0  # a leader line crossing another one
ROUNDS = 4  # layouts tried at most, each giving numbers to the labels the one before had no room for
MANY = 12  # past this many points, one placement order only (the most crowded first): each costs a search
UNPLACED_COST = 1e6  # a label with no clear spot at all: it gets a number instead


def text_width(text: str, size: float) -> float:
    """A generous width of `text` at font size `size` (bold sans)."""
    ems = 0.0
    for char in text:
        if unicodedata.combining(char):
            continue
        if char in NARROW:
            ems += 0.5
        elif char in PLAIN:
            ems += 0.72
        elif char in WIDE:
            ems += 1.1
        elif unicodedata.east_asian_width(char) in ("W", "F") or not char.isascii():
            ems += 1.1
        else:  # capitals and the remaining signs
            ems += 0.87
    return ems * size


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box) -> bool:
        return self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1

    def inside(self, other: Box) -> bool:
        return other.x0 <= self.x0 and self.x1 <= other.x1 and other.y0 <= self.y0 and self.y1 <= other.y1

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    def grown(self, by: float) -> Box:
        return Box(self.x0 - by, self.y0 - by, self.x1 + by, self.y1 + by)

    def nearest(self, x: float, y: float) -> tuple[float, float]:
        return min(max(x, self.x0), self.x1), min(max(y, self.y0), self.y1)


Segment = tuple[float, float, float, float]


@dataclass(frozen=True)
class Marker:
    """A point's marker (a dot or a diamond) as its centre and half size, and its error bar if any."""

    x: float
    y: float
    radius: float
    bar: Box | None = None

    @property
    def box(self) -> Box:
        return Box(self.x - self.radius, self.y - self.radius, self.x + self.radius, self.y + self.radius)


@dataclass(frozen=True)
class Placement:
    box: Box
    leader: Segment | None  # from the marker's edge to the label, when the label was moved away
    text: str  # what is drawn there: the label, or the number the chart's key names it by


def _clip(segment: Segment, box: Box) -> tuple[float, float] | None:
    """The part of a segment inside a box, as fractions of its length (Liang-Barsky), or None."""
    x0, y0, x1, y1 = segment
    dx, dy = x1 - x0, y1 - y0
    low, high = 0.0, 1.0
    for p, q in ((-dx, x0 - box.x0), (dx, box.x1 - x0), (-dy, y0 - box.y0), (dy, box.y1 - y0)):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            low = max(low, t)
        else:
            high = min(high, t)
        if low > high:
            return None
    return low, high


def crosses(segment: Segment, box: Box) -> bool:
    """Whether a segment passes through (or touches) a box."""
    return _clip(segment, box) is not None


def _inside(segment: Segment, box: Box) -> float:
    """How long a stretch of the segment lies in the box: a leader drawn along an error bar can't be seen."""
    part = _clip(segment, box)
    if part is None:
        return 0.0
    return (part[1] - part[0]) * math.hypot(segment[2] - segment[0], segment[3] - segment[1])


def _segments_cross(a: Segment, b: Segment) -> bool:
    def side(px: float, py: float, qx: float, qy: float, rx: float, ry: float) -> float:
        return (qx - px) * (ry - py) - (qy - py) * (rx - px)

    d1 = side(b[0], b[1], b[2], b[3], a[0], a[1])
    d2 = side(b[0], b[1], b[2], b[3], a[2], a[3])
    d3 = side(a[0], a[1], a[2], a[3], b[0], b[1])
    d4 = side(a[0], a[1], a[2], a[3], b[2], b[3])
    return d1 * d2 < 0 and d3 * d4 < 0


def _candidates(marker: Marker, width: float, height: float, gap: float, reach: float) -> Iterator[tuple[float, Box]]:
    """Spots for a label, by rising cost: the ones touching the marker, then rings further out."""
    x, y, near = marker.x, marker.y, marker.radius + gap
    corner = near  # the box's corner at the corner of the marker's own clear square
    yield 0.0, Box(x + near, y - height / 2, x + near + width, y + height / 2)  # right
    yield 1.0, Box(x - near - width, y - height / 2, x - near, y + height / 2)  # left
    yield 2.0, Box(x - width / 2, y - near - height, x + width / 2, y - near)  # above
    yield 2.0, Box(x - width / 2, y + near, x + width / 2, y + near + height)  # below
    yield 3.0, Box(x + corner, y - corner - height, x + corner + width, y - corner)  # above right
    yield 3.0, Box(x + corner, y + corner, x + corner + width, y + corner + height)  # below right
    yield 3.0, Box(x - corner - width, y - corner - height, x - corner, y - corner)  # above left
    yield 3.0, Box(x - corner - width, y + corner, x - corner, y + corner + height)  # below left
    step = height
    distance = near + step
    while distance <= reach:
        count = max(16, int(2 * math.pi * distance / (1.5 * step)))
        for index in range(count):
            angle = 2 * math.pi * index / count
            cx = x + math.cos(angle) * (distance + width / 2)
            cy = y + math.sin(angle) * (distance + height / 2)
            yield distance, Box(cx - width / 2, cy - height / 2, cx + width / 2, cy + height / 2)
        distance += step


def _leader(marker: Marker, box: Box) -> Segment:
    tx, ty = box.nearest(marker.x, marker.y)
    length = math.hypot(tx - marker.x, ty - marker.y) or 1.0
    start = marker.radius + 1
    return (marker.x + (tx - marker.x) * start / length, marker.y + (ty - marker.y) * start / length, tx, ty)


def _along(segment: Segment, guides: Sequence[float], within: float = 2.0) -> float:
    """How much of a leader runs along a horizontal guide line (a grid line, the frame), where it can't be seen."""
    x0, y0, x1, y1 = segment
    length = math.hypot(x1 - x0, y1 - y0)
    total = 0.0
    for guide in guides:
        if abs(y1 - y0) < 1e-9:
            total += length if abs(y0 - guide) <= within else 0.0
            continue
        low, high = sorted((y0, y1))
        share = max(0.0, min(high, guide + within) - max(low, guide - within)) / (high - low)
        total += length * share
    return total


@dataclass(frozen=True)
class _Scene:
    markers: Sequence[Marker]
    width_of: Callable[[str], float]
    height: float
    bounds: Box
    fixed: list[Box]  # markers and tick labels, grown by the gap: no label may enter them
    guides: Sequence[float]
    gap: float
    dots: list[Box]  # the markers as drawn: no leader line may cross another point's

    def layout(
        self, texts: Sequence[str], order: Sequence[int], limit: float
    ) -> tuple[float, dict[int, Placement | None]] | None:
        """Each label in turn takes its cheapest clear spot; the layout's cost is their sum, and a
        label with no clear spot costs UNPLACED_COST. None as soon as the cost reaches `limit`."""
        placed: list[Box] = []
        leaders: list[Segment] = []
        result: dict[int, Placement | None] = {}
        total = 0.0
        for index in order:
            found = self.spot(index, texts[index], placed, leaders)
            total += found[0] if found is not None else UNPLACED_COST
            if total >= limit:
                return None
            result[index] = found[1] if found is not None else None
            if found is not None:
                placed.append(found[1].box)
                if found[1].leader is not None:
                    leaders.append(found[1].leader)
        return total, result

    def spot(self, index: int, text: str, placed: list[Box], leaders: list[Segment]) -> tuple[float, Placement] | None:
        marker, width, height, gap = self.markers[index], self.width_of(text), self.height, self.gap
        reach = math.hypot(self.bounds.x1 - self.bounds.x0, self.bounds.y1 - self.bounds.y0)
        best: tuple[float, Placement] | None = None
        for rank, (cost, box) in enumerate(_candidates(marker, width, height, gap, reach)):
            if best is not None and cost >= best[0]:
                break
            if not box.inside(self.bounds) or any(box.overlaps(other) for other in self.fixed):
                continue
            spaced = box.grown(gap)
            if any(spaced.overlaps(other) for other in placed) or any(crosses(line, spaced) for line in leaders):
                continue
            leader = _leader(marker, box) if rank >= 8 else None
            if leader is not None and (
                any(crosses(leader, other) for other in placed)
                or any(crosses(leader, dot) for dot in self.dots if not dot.contains(leader[0], leader[1]))
            ):
                continue
            total = cost + BAR_COST * sum(m.bar is not None and box.overlaps(m.bar) for m in self.markers)
            if leader is not None:
                total += 2 * sum(_inside(leader, m.bar) for m in self.markers if m.bar is not None)
                total += CROSSING_COST * sum(_segments_cross(leader, other) for other in leaders)
                total += _along(leader, self.guides)
            if best is None or total < best[0]:
                best = (total, Placement(box, leader, text))
        return best


def place_labels(
    markers: Sequence[Marker],
    texts: Sequence[str],
    width_of: Callable[[str], float],
    height: float,
    bounds: Box,
    avoid: Sequence[Box] = (),
    guides: Sequence[float] = (),
    gap: float = 3.0,
) -> list[Placement]:
    """One placement per marker, for the label `texts[i]`, inside `bounds`.

    Labels are kept `gap` apart from each other, from every marker and from the `avoid` boxes
    (the axes' tick labels); a leader line is charged for running along a horizontal `guides`
    line. Greedy placement depends on who chooses first, so up to MANY points a few orders are
    tried (the most crowded points first, left to right, right to left, top down, bottom up, as
    given) and the cheapest layout wins. A label with no clear spot left (a plot too crowded for its names)
    gets a number instead, placed the same way, for the chart's key to name; only if even that
    finds no room does it sit right of its point."""
    fixed = [marker.box.grown(gap) for marker in markers] + [box.grown(1) for box in avoid]  # text: a hair apart
    dots = [marker.box for marker in markers]
    scene = _Scene(markers, width_of, height, bounds, fixed, guides, gap, dots)
    indexes = range(len(markers))

    def crowd(index: int) -> int:
        here = markers[index]
        return sum(math.hypot(m.x - here.x, m.y - here.y) < 80 for m in markers)

    orders = [
        sorted(indexes, key=lambda i: (-crowd(i), i)),
        sorted(indexes, key=lambda i: (markers[i].x, markers[i].y)),
        sorted(indexes, key=lambda i: (-markers[i].x, markers[i].y)),
        sorted(indexes, key=lambda i: (markers[i].y, markers[i].x)),
        sorted(indexes, key=lambda i: (-markers[i].y, markers[i].x)),
        list(indexes),
    ]
    chosen = orders[: len(orders) if len(markers) <= MANY else 1]
    texts, numbered = list(texts), list[int]()
    for _ in range(ROUNDS):
        best = None
        # the numbered labels choose first: they need the spots right by their points
        numbers_first = (sorted(order, key=lambda i: i not in numbered) for order in chosen)
        for order in dict.fromkeys(tuple(order) for order in numbers_first):
            layout = scene.layout(texts, order, best[0] if best is not None else math.inf)
            if layout is not None:
                best = layout
        assert best is not None  # the first order has no limit
        result = best[1]
        missing = [index for index in indexes if result[index] is None and index not in numbered]
        if not missing:
            break
        for index in missing:  # no room for its name: a number, placed with the others next round
            numbered.append(index)
            texts[index] = str(len(numbered))
    placements = []
    for index in indexes:
        placement = result[index]
        if placement is None:  # not even room for a number: beside its point
            marker, near = markers[index], markers[index].radius + gap
            right = marker.x + near + width_of(texts[index])
            placement = Placement(
                Box(marker.x + near, marker.y - height / 2, right, marker.y + height / 2), None, texts[index]
            )
        placements.append(placement)
    return placements
