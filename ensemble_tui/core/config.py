"""Provider configuration files (`Configurations/<Provider>.json`): models, prices, capabilities."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ensemble_tui.core.errors import ConfigError

# The built-in providers: the label the user sees, and the file that configures it.
PROVIDER_FILES: dict[str, str] = {
    "ChatGPT": "OpenAI.json",
    "Claude": "Claude.json",
    "Gemini": "Gemini.json",
}
PROVIDERS: tuple[str, ...] = tuple(PROVIDER_FILES)
# Other files in Configurations/ that are not provider files.
NOT_PROVIDER_FILES = ("Settings", "Keymap")


SearchBilling = Literal["per_query", "per_prompt"]


class MissingKey(str):
    """Why a provider is unavailable when its API key is not set: the sentence the user reads,
    carrying what it names (the variables, and `places`: where a key can be set, from
    core/store/home.py key_places), so that no caller reads them back out of the sentence (the
    empty chat gathers every missing key into one line)."""

    variables: tuple[str, ...]
    places: str

    def __new__(cls, label: str, variables: Sequence[str], places: str) -> MissingKey:
        reason = super().__new__(cls, f"{label} is unavailable: set {' or '.join(variables)} {places}")
        reason.variables = tuple(variables)
        reason.places = places
        return reason


class ModelSpec(BaseModel):
    """One model a provider offers: what it costs and which parameters it accepts.

    Prices are USD per 1M tokens; `None` means "not known", which the cost estimate treats
    cautiously instead of guessing. `web_search_per_call` is the price of one billed search, and
    `search_billing` says what is billed: every search the reply reports ("per_query": OpenAI's
    web search calls, Claude's searches, Gemini 3's search queries) or one fee per call that
    searched at all ("per_prompt": Gemini 2.5's grounded prompts).
    """

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1)
    name: str = ""
    input: float | None = Field(default=None, ge=0)
    cached_input: float | None = Field(default=None, ge=0)
    cache_write: float | None = Field(default=None, ge=0)
    output: float | None = Field(default=None, ge=0)
    max_output_tokens: int | None = Field(default=None, ge=1)  # the model's own limit; None: not known
    temperature: bool = False
    reasoning: bool = False  # offers a reasoning effort (off / low / medium / high)
    web_search: bool = True
    web_search_per_call: float | None = Field(default=None, ge=0)
    search_billing: SearchBilling = "per_query"  # the default never bills fewer searches than ran
    retired: date | None = None  # the announced retirement date, past or to come
    replacement: str | None = None  # the model the provider names in its place
    # Where `retired` comes from, or "none announced" and where that was looked up.
    retirement_source: str = ""
    notes: str = ""

    def retired_by(self, day: date | None = None) -> bool:
        """Whether the model has retired by `day` (None: today)."""
        return self.retired is not None and (day or today()) >= self.retired

    def retiring_by(self, day: date | None = None) -> bool:
        """Whether `day` (None: today) is within RETIREMENT_NOTICE before the retirement."""
        day = day or today()
        return self.retired is not None and self.retired - RETIREMENT_NOTICE <= day < self.retired

    @property
    def display_name(self) -> str:
        return self.name or self.id

    @property
    def price_known(self) -> bool:
        return self.input is not None and self.output is not None


# From how long before a model's retirement Settings and `ask` name its replacement.
RETIREMENT_NOTICE = timedelta(days=30)


def today() -> date:
    """The day retirements are judged by (UTC, as the providers announce them)."""
    return datetime.now(UTC).date()


def retirement_line(provider: str, config: ProviderConfig, model: str, day: date | None = None) -> str | None:
    """One line when `model` retires within RETIREMENT_NOTICE (naming its replacement) or has
    retired (saying the provider's default is used instead); None otherwise."""
    spec = config.model(model)
    if spec is None or spec.retired is None:
        return None
    day = day or today()
    if spec.retired_by(day):
        return (
            f"{provider}: {model} was retired on {spec.retired:%Y-%m-%d}; {config.default_model} is used "
            "instead - pick another in Settings."
        )
    if spec.retiring_by(day):
        instead = f"; its replacement is {spec.replacement}" if spec.replacement else ""
        return f"{provider}: {model} retires on {spec.retired:%Y-%m-%d}{instead} - pick another in Settings."
    return None


# Used for a model whose prices are unknown: high enough that the budget guard errs early.
CAUTIOUS_PRICES = {"input": 15.0, "cached_input": 15.0, "cache_write": 18.75, "output": 75.0}
CAUTIOUS_SEARCH_PRICE = 0.035


Protocol = Literal["openai-responses", "anthropic-messages", "gemini", "openai-chat"]
# How a provider receives the PDF: its own file API, a base64 `file` content part in the
# message (OpenRouter), or text extracted locally.
PdfDelivery = Literal["file-api", "file-part", "text"]
BUILTIN_PROTOCOLS: dict[str, Protocol] = {
    "ChatGPT": "openai-responses",
    "Claude": "anthropic-messages",
    "Gemini": "gemini",
}


class ProviderConfig(BaseModel):
    """The contents of one `Configurations/<Provider>.json` file."""

    model_config = ConfigDict(extra="ignore")

    label: str = Field(min_length=1)
    protocol: Protocol | None = None  # None: the built-in protocol for `label`
    enabled: bool = True
    joins_all: bool = True  # whether the "All" action includes this provider
    key_env: list[str] = Field(default_factory=list)  # empty: no key needed (local servers)
    base_url: str | None = None
    pdf: PdfDelivery = "file-api"
    web_search: Literal["native", "openrouter-plugin", "none"] = "native"
    local: bool = False  # a server on this machine: unreachable means "not running", not "retry"
    default_model: str
    models: list[ModelSpec] = Field(min_length=1)

    @property
    def api(self) -> Protocol:
        return self.protocol or BUILTIN_PROTOCOLS.get(self.label, "openai-chat")

    def model(self, model_id: str) -> ModelSpec | None:
        """The spec for `model_id` (matched on id or display name), or None if unknown."""
        wanted = model_id.strip().lower()
        for spec in self.models:
            if spec.id.lower() == wanted or spec.display_name.lower() == wanted:
                return spec
        return None

    def spec_or_cautious(self, model_id: str) -> ModelSpec:
        """A spec for any model id; an unknown model gets no prices (so cautious ones apply)."""
        return self.model(model_id) or ModelSpec(id=model_id, temperature=False)


def load_provider_config(path: Path) -> ProviderConfig:
    """Read and validate one provider file; any problem becomes a ConfigError naming it."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path} is missing - restore it or delete it to get the default back") from None
    except OSError as exc:
        raise ConfigError(f"{path} cannot be read ({exc.strerror})") from None
    try:
        return ProviderConfig.model_validate(json.loads(raw))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}) - fix it or delete it"
        ) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "top level"
        raise ConfigError(f"{path}: {where}: {first['msg']} - fix it or delete it") from None


@dataclass(frozen=True)
class LoadedConfigs:
    """Every usable provider configuration, and one line for each file that is not usable."""

    configs: dict[str, ProviderConfig]
    problems: dict[str, str]  # provider label (or file stem) -> what is wrong and how to fix it


def load_provider_configs(config_dir: Path) -> LoadedConfigs:
    """The built-in providers' files plus any other provider file dropped into the folder.

    A broken file costs only its own provider (reported, never raised), so the app keeps
    working with the rest. Files with `"enabled": false` are skipped silently.
    """
    configs: dict[str, ProviderConfig] = {}
    problems: dict[str, str] = {}
    extra = sorted(
        path
        for path in config_dir.glob("*.json")
        if path.name not in PROVIDER_FILES.values() and path.stem not in NOT_PROVIDER_FILES
    )
    for label, path in [
        *((label, config_dir / name) for label, name in PROVIDER_FILES.items()),
        *((p.stem, p) for p in extra),
    ]:
        try:
            config = load_provider_config(path)
        except ConfigError as exc:
            problems[label] = str(exc)
            continue
        if not config.enabled:
            continue
        if config.label in configs:
            problems[path.stem] = f"{path}: label {config.label!r} is already used by another provider - rename it"
            continue
        configs[config.label] = config
    return LoadedConfigs(configs, problems)
