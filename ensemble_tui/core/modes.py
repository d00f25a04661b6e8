"""Run modes: the one mapping from a mode to the models that take part."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Mode(enum.Enum):
    CHATGPT = "chatgpt"
    CLAUDE = "claude"
    GEMINI = "gemini"
    CHATGPT_GEMINI = "chatgpt-gemini"
    ALL = "all"

    @property
    def providers(self) -> tuple[str, ...]:
        return _MODE_PROVIDERS[self]

    @property
    def label(self) -> str:
        return _MODE_LABELS[self]

    @property
    def is_multi(self) -> bool:
        return len(self.providers) > 1

    @classmethod
    def parse(cls, value: str) -> Mode:
        """Accept a mode value (`chatgpt-gemini`) or its label (`ChatGPT & Gemini`)."""
        wanted = value.strip().lower()
        for mode in cls:
            if wanted in (mode.value, mode.label.lower()):
                return mode
        choices = ", ".join(mode.value for mode in cls)
        raise ValueError(f"unknown mode {value!r} (choose from {choices})")


@dataclass(frozen=True)
class SingleModel:
    """Run one provider alone that is not a built-in (one added by a configuration file)."""

    provider: str

    @property
    def value(self) -> str:
        return self.provider.lower()

    @property
    def label(self) -> str:
        return self.provider

    @property
    def providers(self) -> tuple[str, ...]:
        return (self.provider,)

    @property
    def is_multi(self) -> bool:
        return False


RunMode = Mode | SingleModel


def parse_run_mode(value: str, extra_providers: tuple[str, ...] = ()) -> RunMode:
    """A built-in mode, or a single run of an extra provider named by its label."""
    try:
        return Mode.parse(value)
    except ValueError:
        for provider in extra_providers:
            if value.strip().lower() == provider.lower():
                return SingleModel(provider)
    choices = ", ".join([mode.value for mode in Mode] + [provider.lower() for provider in extra_providers])
    raise ValueError(f"unknown mode {value!r} (choose from {choices})")


_MODE_PROVIDERS: dict[Mode, tuple[str, ...]] = {
    Mode.CHATGPT: ("ChatGPT",),
    Mode.CLAUDE: ("Claude",),
    Mode.GEMINI: ("Gemini",),
    Mode.CHATGPT_GEMINI: ("ChatGPT", "Gemini"),
    Mode.ALL: ("ChatGPT", "Claude", "Gemini"),
}

_MODE_LABELS: dict[Mode, str] = {
    Mode.CHATGPT: "ChatGPT",
    Mode.CLAUDE: "Claude",
    Mode.GEMINI: "Gemini",
    Mode.CHATGPT_GEMINI: "ChatGPT & Gemini",
    Mode.ALL: "All",
}


class Style(enum.Enum):
    """How a multi-model turn deliberates. The aggregator loop is the default."""

    AGGREGATE = "aggregate"
    COUNCIL = "council"
    VOTE = "vote"
    DEBATE = "debate"

    @property
    def label(self) -> str:
        return _STYLE_LABELS[self]

    @classmethod
    def parse(cls, value: str) -> Style:
        wanted = value.strip().lower()
        for style in cls:
            if wanted in (style.value, style.label.lower()):
                return style
        choices = ", ".join(style.value for style in cls)
        raise ValueError(f"unknown style {value!r} (choose from {choices})")


_STYLE_LABELS: dict[Style, str] = {
    Style.AGGREGATE: "Aggregator",
    Style.COUNCIL: "Council",
    Style.VOTE: "Critique & vote",
    Style.DEBATE: "Debate",
}
