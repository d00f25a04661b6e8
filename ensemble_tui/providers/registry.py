"""Which providers a workspace can use, built from its configuration files and the keys found.

A provider without a key is left out with one line naming the variable to set; every mode that
does not need it keeps working. Building adapters imports no SDK: each adapter creates its
client on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ensemble_tui.core.provider import Provider
from ensemble_tui.providers.anthropic_adapter import AnthropicProvider
from ensemble_tui.providers.base import SdkProvider
from ensemble_tui.providers.credentials import Credentials, environment_view, find_key, resolve_base_url
from ensemble_tui.providers.gemini_adapter import GeminiProvider
from ensemble_tui.providers.openai_adapter import OpenAIProvider

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace

# The adapter for each built-in provider label (see core.config.PROVIDER_FILES).
ADAPTERS: dict[str, type[SdkProvider]] = {
    "ChatGPT": OpenAIProvider,
    "Claude": AnthropicProvider,
    "Gemini": GeminiProvider,
}


def missing_key_message(label: str, key_env: list[str]) -> str:
    names = " or ".join(key_env) or "an API key variable in its configuration file"
    return f"{label} is unavailable: set {names} (environment or .env)"


def build_providers(
    workspace: Workspace, env: Mapping[str, str] | None = None
) -> tuple[dict[str, Provider], dict[str, str]]:
    """Adapters keyed by label, and for each provider left out, why.

    `env` replaces `os.environ` (tests, `--demo`); `.env` files in the workspace's home folder
    and the current folder fill in what it lacks.
    """
    view = environment_view(env, home=workspace.paths.root)
    providers: dict[str, Provider] = {}
    unavailable: dict[str, str] = {}
    for label, config in workspace.configs.items():
        adapter = ADAPTERS.get(label)
        if adapter is None:
            unavailable[label] = f"{label} is unavailable: no adapter for this provider"
            continue
        found = find_key(view, config.key_env)
        if found is None:
            unavailable[label] = missing_key_message(label, config.key_env)
            continue
        key_var, key = found
        base_url = resolve_base_url(view, adapter.base_url_env, config.base_url)
        providers[label] = adapter(label, Credentials(key=key, key_var=key_var, base_url=base_url))
    return providers, unavailable
