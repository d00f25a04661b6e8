"""The anonymous proposal packet the aggregator reads, shuffled on every pass."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class ProposalPacket:
    """Proposals in packet order; `authors` stays in the core and never reaches a prompt."""

    authors: tuple[str, ...]
    texts: tuple[str, ...]

    def render(self) -> str:
        return "\n\n".join(
            f"# Proposed Reply {number}:\n{text.strip()}" for number, text in enumerate(self.texts, start=1)
        )

    def number_of(self, author: str) -> int:
        return self.authors.index(author) + 1


def build_packet(proposals: dict[str, str], rng: random.Random) -> ProposalPacket:
    """Shuffle so that position reveals nothing about which model wrote what."""
    authors = list(proposals)
    rng.shuffle(authors)
    return ProposalPacket(tuple(authors), tuple(proposals[author] for author in authors))
