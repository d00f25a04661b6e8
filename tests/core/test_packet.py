import random

from ensemble_tui.core.packet import build_packet


def test_packet_is_numbered_and_hides_authors() -> None:
    packet = build_packet({"ChatGPT": "alpha", "Claude": "beta", "Gemini": "gamma"}, random.Random(1))
    rendered = packet.render()
    assert rendered.count("# Proposed Reply ") == 3
    for name in ("ChatGPT", "Claude", "Gemini"):
        assert name not in rendered
    for number, author in enumerate(packet.authors, start=1):
        assert packet.number_of(author) == number
        assert f"# Proposed Reply {number}:\n{packet.texts[number - 1]}" in rendered


def test_order_changes_between_passes() -> None:
    rng = random.Random(3)
    proposals = {"ChatGPT": "a", "Claude": "b", "Gemini": "c"}
    orders = {build_packet(proposals, rng).authors for _ in range(30)}
    assert len(orders) > 1
