"""Run modes: the one mapping from a mode to the models that take part."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TypeVar

E = TypeVar("E", bound="_Labelled")


class _Labelled(enum.Enum):
    """An enum whose members are also known by a label, parsed from either."""

    @property
    def label(self) -> str:
        raise NotImplementedError

    @classmethod
    def parse(cls: type[E], value: str) -> E:
        """Accept a value (`chatgpt-gemini`) or its label (`ChatGPT & Gemini`), any case."""
        wanted = value.strip().lower()
        for member in cls:
            if wanted in (member.value, member.label.lower()):
                return member
        choices = ", ".join(member.value for member in cls)
        raise ValueError(f"unknown {cls.__name__.lower()} {value!r} (choose from {choices})")


class Mode(_Labelled):
    CHATGPT = "chatgpt"
    CLAUDE = "claude"
    GEMINI = "gemini"
    CHATGPT_GEMINI = "chatgpt-gemini"
    ALL = "all"
    # The cheapest strong model answers twice; All runs only if the two disagree (core/turn/auto.py).
    AUTO = "auto"

    @property
    def providers(self) -> tuple[str, ...]:
        return _MODE_PROVIDERS[self]

    @property
    def label(self) -> str:
        return _MODE_LABELS[self]

    @property
    def is_multi(self) -> bool:
        return len(self.providers) > 1


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
    Mode.AUTO: ("ChatGPT", "Claude", "Gemini"),  # the pair comes from these; an escalation asks them all
}

_MODE_LABELS: dict[Mode, str] = {
    Mode.CHATGPT: "ChatGPT",
    Mode.CLAUDE: "Claude",
    Mode.GEMINI: "Gemini",
    Mode.CHATGPT_GEMINI: "ChatGPT & Gemini",
    Mode.ALL: "All",
    Mode.AUTO: "Auto",
}


class Style(_Labelled):
    """How a multi-model turn deliberates. The aggregator loop is the default."""

    AGGREGATE = "aggregate"
    COUNCIL = "council"
    VOTE = "vote"
    DEBATE = "debate"

    @property
    def label(self) -> str:
        return _STYLE_LABELS[self]


_STYLE_LABELS: dict[Style, str] = {
    Style.AGGREGATE: "Aggregator",
    Style.COUNCIL: "Council",
    Style.VOTE: "Critique & vote",
    Style.DEBATE: "Debate",
}
