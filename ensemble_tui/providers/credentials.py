"""Where keys and base URLs come from: the environment first, then the home folder's `.env`.

The `.env` is read with python-dotenv's `dotenv_values` into a private mapping and never
written into `os.environ`, so a key meant for this app does not leak into child processes or
into the SDKs' own environment lookups. The key *value* never leaves this module's callers'
hands: errors and logs name the variable (`key_var`), never its content.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ensemble_tui.core.store.home import HomePaths

log = logging.getLogger(__name__)

# Set by the simulator (tests, `--demo`): every OpenAI-compatible provider is then served at
# `<value>/<provider slug>/v1` with a dummy key, so no configured provider reaches a real host.
SIMULATED_CHAT_VAR = "ENSEMBLE_TUI_SIMULATOR_CHAT_URL"


@dataclass(frozen=True)
class Credentials:
    """What one adapter needs to reach its API."""

    key: str = field(repr=False)  # repr=False: a logged or printed adapter never shows the key
    key_var: str  # the variable that supplied the key, named in error messages
    base_url: str | None = None  # None: the SDK's public default


def read_dotenv(path: Path) -> dict[str, str]:
    """The non-empty values of one `.env` file; a missing or unreadable file gives nothing."""
    if not path.is_file():
        return {}
    try:
        from dotenv import dotenv_values

        values = dotenv_values(path)
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("cannot read %s: %s", path, type(exc).__name__)
        return {}
    return {name: value for name, value in values.items() if value}


def environment_view(env: Mapping[str, str] | None = None, *, home: Path | None = None) -> dict[str, str]:
    """The variables adapters read: the app home's `.env`, overridden by the environment (`env`,
    or `os.environ` when None).

    Only the home's `.env` is read: the home is a folder the user chose (`--home`,
    $ENSEMBLE_TUI_HOME, a trusted folder or the user data folder; core/store/home.py), whereas
    the current folder may be anything cloned or downloaded, and its `.env` could send the
    user's keys to a server of its choosing. The environment wins so that a one-off
    `OPENAI_API_KEY=... ensemble-tui` behaves as users expect.
    """
    merged: dict[str, str] = {}
    if home is not None:
        merged.update(read_dotenv(HomePaths(home.expanduser().resolve()).dotenv))
    source = os.environ if env is None else env
    merged.update({name: value for name, value in source.items() if value})
    return merged


def find_key(view: Mapping[str, str], names: Iterable[str]) -> tuple[str, str] | None:
    """The first non-blank key among `names`, as (variable, value), or None."""
    for name in names:
        value = (view.get(name) or "").strip()
        if value:
            return name, value
    return None


def resolve_base_url(view: Mapping[str, str], env_var: str, configured: str | None) -> str | None:
    """The environment variable (what the SDKs themselves honour), else the provider
    configuration file's `base_url`, else None (the SDK default)."""
    for candidate in (view.get(env_var), configured):
        if candidate and candidate.strip():
            return candidate.strip()
    return None


def provider_slug(label: str) -> str:
    """A label as a lower-case path segment: "OpenRouter" -> "openrouter", "My vLLM" -> "my-vllm"."""
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
