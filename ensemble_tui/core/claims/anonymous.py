"""The one redaction every model-to-model text goes through: a text a model reads that another
model wrote (a proposal, a review, a debate message, a reply in the chat's history) carries no
model or maker name, since an answer that names its author ("As Claude, made by Anthropic...")
would tell its reader which answer is whose.

Names are matched on normalised text, so that spelling games do not slip through: case folded
(NFKC, so full-width letters count), format characters removed (zero-width spaces, joiners, bidi
marks and overrides), a few look-alike Cyrillic and Greek letters read as Latin, any run of
spaces, hyphens, dots or underscores between a name's parts accepted ("gpt-4o", "GPT 4o",
"GPT4o"), and a version that follows a name ("GPT5", "Claude3.5 Sonnet", "Gemini-2.5-pro")
taken with it. Only the matched spans are replaced; the rest of the text is kept as written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ensemble_tui.core.provider import Message

REDACTED = "[a model]"
# Makers and model families named even when no configured provider uses them.
MAKERS = (
    "OpenAI",
    "ChatGPT",
    "GPT",
    "Anthropic",
    "Claude",
    "Google",
    "DeepMind",
    "Gemini",
    "Bard",
    "OpenRouter",
    "xAI",
    "Grok",
    "Mistral",
    "DeepSeek",
    "Llama",
    "Qwen",
    "Ollama",
)
# Words a model's name carries after its family: "Claude 3.5 Sonnet", "Gemini 2.5 Pro".
_TIERS = ("sonnet", "opus", "haiku", "pro", "flash", "lite", "mini", "nano", "turbo", "ultra", "preview", "thinking")
# Look-alike letters a name can be spelled with (Cyrillic and Greek), read as the Latin letter.
_LOOKALIKES = str.maketrans(
    {
        "а": "a",
        "с": "c",
        "е": "e",
        "о": "o",
        "р": "p",
        "х": "x",
        "у": "y",
        "і": "i",
        "ј": "j",
        "ԁ": "d",
        "ѕ": "s",
        "һ": "h",
        "ӏ": "l",
        "α": "a",
        "ο": "o",
        "ε": "e",
        "ι": "i",
        "ν": "v",
        "τ": "t",
        "κ": "k",
    }
)
_SEPARATORS = r"[\s\-_./]*"


def normalised(text: str) -> tuple[str, Sequence[int]]:
    """`text` case folded, without format characters, look-alikes read as Latin; with, for each
    character of the result (and one past its end), the index in `text` it came from."""
    if text.isascii():  # the common case, kept cheap: a long chat's history passes through here
        return text.lower(), range(len(text) + 1)
    # Mostly ASCII with a few dashes, quotes or symbols: the ASCII runs are lowered whole (one
    # character each way) and only the other characters are folded one by one. Per character,
    # five 50 KB proposals took ~80 ms of CPU on the app's loop before the claim map's call.
    chars: list[str] = []
    origin: list[int] = []
    kept = 0
    for run in _ASCII_RUN.finditer(text):
        start, end = run.span()
        _fold_each(text, kept, start, chars, origin)
        chars.append(run.group().lower())
        origin.extend(range(start, end))
        kept = end
    _fold_each(text, kept, len(text), chars, origin)
    origin.append(len(text))
    return "".join(chars), origin


_ASCII_RUN = re.compile(r"[\x00-\x7f]+")


def _fold_each(text: str, start: int, end: int, chars: list[str], origin: list[int]) -> None:
    """Fold the non-ASCII characters `text[start:end]` into `chars`, with their origins."""
    for index in range(start, end):
        char = text[index]
        if unicodedata.category(char) == "Cf":  # zero-width, joiners, bidi marks and overrides, soft hyphen
            continue
        folded = unicodedata.normalize("NFKC", char).casefold().translate(_LOOKALIKES)
        chars.append(folded)
        origin.extend([index] * len(folded))


def _parts(name: str) -> list[str]:
    """A name's letter and digit runs: "claude-sonnet-4-5" -> claude, sonnet, 4, 5; "gpt4o" -> gpt, 4, o."""
    folded, _ = normalised(name)
    return re.findall(r"[^\W\d_]+|\d+", folded)


def name_pattern(names: Iterable[str]) -> re.Pattern[str]:
    """Any of `names` (provider labels, model ids) or a maker's name, with any version after it,
    as a whole word of the normalised text (see `normalised`)."""
    return _name_pattern(tuple(names))


@lru_cache(maxsize=16)  # every multi-model turn asks for its ~60 configured names again: 0.5-0.7 ms on the loop
def _name_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    forms = {"".join(parts): parts for name in (*names, *MAKERS) if (parts := _parts(name))}
    alternatives = [
        _SEPARATORS.join(re.escape(part) for part in parts)
        for parts in sorted(forms.values(), key=lambda parts: len("".join(parts)), reverse=True)
    ]
    version = r"(?:[\s\-_.]?\d+(?:\.\d+)*[a-z]?\b|[\s\-_.]?(?:o\d+)\b|[\s\-_.]?(?:" + "|".join(_TIERS) + r")\b)"
    first = "".join(sorted({re.escape(parts[0][0]) for parts in forms.values()}))  # fails most places at once
    return re.compile(rf"(?=[{first}])(?<![^\W_])(?:" + "|".join(alternatives) + r")(?:" + version + r")*s?(?![^\W_])")


def redact(text: str, pattern: re.Pattern[str] | None) -> str:
    """`text` with every name `pattern` finds in its normalised form replaced by REDACTED."""
    if pattern is None or not text:
        return text
    return _redacted(text, pattern)


@lru_cache(maxsize=4096)  # a chat's history is redacted again on every turn: its replies come back
def _redacted(text: str, pattern: re.Pattern[str]) -> str:
    folded, origin = normalised(text)
    pieces: list[str] = []
    kept = 0
    for match in pattern.finditer(folded):
        if match.end() == match.start():
            continue
        start, end = origin[match.start()], origin[match.end() - 1] + 1
        pieces.extend((text[kept:start], REDACTED))
        kept = end
    pieces.append(text[kept:])
    return "".join(pieces)


def anonymous_history(history: tuple[Message, ...], pattern: re.Pattern[str] | None) -> tuple[Message, ...]:
    """The chat so far with the names taken out of the replies (the user's own words stay)."""
    return tuple(
        Message(turn.role, redact(turn.text, pattern)) if turn.role == "assistant" else turn for turn in history
    )


@dataclass(frozen=True)
class Redaction:
    """The redaction for one turn: the configured providers' labels and model ids, and the makers."""

    pattern: re.Pattern[str]

    @classmethod
    def of(cls, names: Iterable[str]) -> Redaction:
        return cls(name_pattern(names))

    def __call__(self, text: str) -> str:
        return redact(text, self.pattern)

    def texts(self, texts: Mapping[str, str]) -> dict[str, str]:
        """Each author's text redacted (the authors, never shown to a model, stay as keys)."""
        return {author: self(text) for author, text in texts.items()}

    def history(self, history: tuple[Message, ...]) -> tuple[Message, ...]:
        return anonymous_history(history, self.pattern)
