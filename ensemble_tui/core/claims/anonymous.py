"""What the mapper reads carries no model or maker name: a proposal that names its author
("As Claude, ...") would tell the mapper which letter is whom."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ensemble_tui.core.provider import Turn

REDACTED = "[a model]"
MAKERS = ("OpenAI", "ChatGPT", "GPT", "Anthropic", "Claude", "Google", "DeepMind", "Gemini", "OpenRouter")


def name_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """Any of `names` (provider labels, model ids) or a maker's name, as a whole word, any case."""
    words = sorted({name.strip() for name in (*names, *MAKERS) if name.strip()}, key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(word) for word in words) + r")(?![\w])", re.IGNORECASE)


def redact(text: str, pattern: re.Pattern[str] | None) -> str:
    return pattern.sub(REDACTED, text) if pattern is not None else text


def anonymous_history(history: tuple[Turn, ...], pattern: re.Pattern[str] | None) -> tuple[Turn, ...]:
    """The chat so far with the names taken out of the replies (the user's own words stay)."""
    return tuple(Turn(turn.role, redact(turn.text, pattern)) if turn.role == "assistant" else turn for turn in history)
