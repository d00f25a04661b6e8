"""Anonymous letters for answers, shuffled separately for every reader."""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

from ensemble_tui.core.claims.anonymous import Redaction
from ensemble_tui.core.turn.styles.packet import neutralize_headings


@dataclass(frozen=True)
class Labelling:
    """Which author hides behind which letter, for one reader. Never shown to a model."""

    by_label: dict[str, str]  # letter -> author

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.by_label)

    def label_of(self, author: str) -> str:
        for label, who in self.by_label.items():
            if who == author:
                return label
        raise KeyError(author)

    def render(self, texts: dict[str, str], redaction: Redaction, heading: str = "Answer") -> str:
        """`# Answer A` blocks in letter order; authors never appear, nor names in the texts."""
        return "\n\n".join(
            f"# {heading} {label}\n{neutralize_headings(redaction(texts[author]).strip())}"
            for label, author in self.by_label.items()
        )


def letters(count: int) -> tuple[str, ...]:
    return tuple(string.ascii_uppercase[:count])


def shuffled_labelling(
    authors: list[str] | tuple[str, ...], rng: random.Random, exclude: str | None = None
) -> Labelling:
    """Letters A, B, C… over `authors` in a random order, leaving out `exclude` (the reader)."""
    pool = [author for author in authors if author != exclude]
    rng.shuffle(pool)
    return Labelling(dict(zip(letters(len(pool)), pool, strict=True)))
