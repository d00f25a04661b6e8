"""The label placement on its own: spots a reader would pick, in the cases a chart's data makes."""

from __future__ import annotations

from ensemble_tui.eval.label_place import Box, Marker, place_labels, text_width

BOUNDS = Box(0, 0, 400, 200)


def width(text: str) -> float:
    return text_width(text, 11)


def test_a_lone_point_is_labelled_on_its_right_with_no_leader() -> None:
    (placement,) = place_labels([Marker(100, 100, 5)], ["council"], width, 13, BOUNDS)
    assert placement.leader is None and placement.text == "council"
    assert placement.box.x0 > 105 and placement.box.y0 < 100 < placement.box.y1


def test_a_point_at_the_right_edge_is_labelled_on_its_left() -> None:
    (placement,) = place_labels([Marker(395, 100, 5)], ["debate"], width, 13, BOUNDS)
    assert placement.box.inside(BOUNDS) and placement.box.x1 < 390 and placement.leader is None


def test_arms_on_the_same_spot_each_get_a_label_of_their_own() -> None:
    """Two arms with the same cost and score (the demo's single models at 0% cost about the same)."""
    markers = [Marker(100, 100, 5), Marker(100, 100, 5), Marker(100, 100, 5)]
    placements = place_labels(markers, ["ChatGPT alone", "Gemini alone", "auto"], width, 13, BOUNDS)
    boxes = [placement.box for placement in placements]
    assert all(not a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    assert all(not box.overlaps(markers[0].box) for box in boxes)


def test_text_widths_are_generous_for_wide_letters_and_any_script() -> None:
    assert width("WWW") > width("iii") * 2
    assert width("評価") >= 2 * 11  # a full-width character is an em at least
    assert width("e\u0301") == width("e")  # a combining accent adds nothing
