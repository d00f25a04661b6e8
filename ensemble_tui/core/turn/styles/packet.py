"""The anonymous proposal packet the aggregator reads, shuffled on every pass."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ensemble_tui.core.claims.anonymous import Redaction

# A heading inside an answer that imitates the packet's own structure ("# Proposed Reply 2:",
# "# Answer B", "# Remarks from the aggregator") could fake an extra proposal or reorder the
# packet. Such lines are escaped so they read as text, never as structure.
_STRUCTURE = re.compile(
    r"^([ \t]{0,3})(#+[ \t]*(?:proposed\s+reply|answer|agent|remarks\s+from)\b)", re.IGNORECASE | re.MULTILINE
)


def neutralize_headings(text: str) -> str:
    return _STRUCTURE.sub(r"\1\\\2", text)


@dataclass(frozen=True)
class ProposalPacket:
    """Proposals in packet order; `authors` stays in the core and never reaches a prompt."""

    authors: tuple[str, ...]
    texts: tuple[str, ...]

    def render(self) -> str:
        return "\n\n".join(
            f"# Proposed Reply {number}:\n{neutralize_headings(text.strip())}"
            for number, text in enumerate(self.texts, start=1)
        )

    def number_of(self, author: str) -> int:
        return self.authors.index(author) + 1


def build_packet(proposals: dict[str, str], rng: random.Random, redaction: Redaction) -> ProposalPacket:
    """Shuffle so that position reveals nothing about which model wrote what, and redact the
    names so that the words do not either."""
    authors = list(proposals)
    rng.shuffle(authors)
    return ProposalPacket(tuple(authors), tuple(redaction(proposals[author]) for author in authors))
