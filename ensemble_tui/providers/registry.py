"""Which providers a workspace can use, built from its configuration files and the keys found.

The adapter is chosen by the configuration's protocol (`ProviderConfig.api`), so a file dropped
into `Configurations/` with `"protocol": "openai-chat"` gets the Chat Completions adapter under
its own label. A configuration with `"enabled": false` is skipped silently: it is a shipped
example, not a problem. An empty `key_env` means the server needs no key (a local one); any
other provider without a key is left out with one line naming the variable to set, and every
mode that does not need it keeps working. Building adapters imports no SDK: each adapter
creates its client on first use.

Under the simulator (`SIMULATED_CHAT_VAR` set: tests, `--demo`), every OpenAI-compatible
provider is pointed at the simulator with a dummy key, so no configured provider can reach a
real host from a demo.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ensemble_tui.core.config import PROVIDER_FILES, MissingKey, ProviderConfig
from ensemble_tui.core.provider import Provider
from ensemble_tui.core.store.home import key_places
from ensemble_tui.core.store.upload_registry import UploadRegistry
from ensemble_tui.providers.anthropic_adapter import AnthropicProvider
from ensemble_tui.providers.base import SdkProvider
from ensemble_tui.providers.chat_completions_adapter import ChatCompletionsProvider
from ensemble_tui.providers.credentials import (
    SIMULATED_CHAT_VAR,
    Credentials,
    environment_view,
    find_key,
    provider_slug,
    resolve_base_url,
)
from ensemble_tui.providers.gemini_adapter import GeminiProvider
from ensemble_tui.providers.openai_adapter import OpenAIProvider
from ensemble_tui.providers.uploads import UploadBook

if TYPE_CHECKING:
    from ensemble_tui.core.workspace import Workspace

# The adapter for each protocol a configuration file can name (see core.config.Protocol).
ADAPTERS: dict[str, type[SdkProvider]] = {
    "openai-responses": OpenAIProvider,
    "anthropic-messages": AnthropicProvider,
    "gemini": GeminiProvider,
    "openai-chat": ChatCompletionsProvider,
}
# Sent where a server needs no key: the openai SDK refuses to build a client without one.
NO_KEY = "ensemble-tui-no-key"
SIMULATED_KEY = "sk-sim-chat-key-0000"


def config_file_name(label: str) -> str:
    """The file that configures `label`, for messages that tell the user what to edit."""
    return PROVIDER_FILES.get(label, f"{label}.json")


def build_providers(
    workspace: Workspace, env: Mapping[str, str] | None = None
) -> tuple[dict[str, Provider], dict[str, str]]:
    """Adapters keyed by label, and for each enabled provider left out, why.

    `env` replaces `os.environ` (tests, `--demo`); the `.env` in the workspace's home folder
    fills in what it lacks (credentials.py).
    """
    view = environment_view(env, home=workspace.paths.root)
    places = key_places(workspace.paths.root, Path.cwd())
    providers: dict[str, Provider] = {}
    unavailable: dict[str, str] = {}
    for label, config in workspace.configs.items():
        if not config.enabled:
            continue
        adapter = ADAPTERS.get(config.api)
        if adapter is None:
            unavailable[label] = f"{label} is unavailable: no adapter for protocol {config.api}"
            continue
        credentials = _credentials(label, config, adapter, view, places)
        if isinstance(credentials, str):
            unavailable[label] = credentials
            continue
        providers[label] = keep_uploads(adapter.from_config(label, credentials, config), workspace)
    return providers, unavailable


def keep_uploads(adapter: SdkProvider, workspace: Workspace) -> SdkProvider:
    """Uploads kept in the workspace's archive and reused across runs and chats (providers.uploads);
    the retention period from Settings also sets OpenAI's upload expiry."""
    adapter.retention_s = workspace.settings.upload_retention_days * 86_400.0
    if adapter.keeps_files:
        book = UploadBook(UploadRegistry(workspace.archive), lambda: workspace.session.id)
        adapter.uploads.keep_in(book, adapter.delete_file)
    return adapter


def _credentials(
    label: str, config: ProviderConfig, adapter: type[SdkProvider], view: Mapping[str, str], places: str
) -> Credentials | str:
    """The key and base URL for one provider, or why it is unavailable (`places`: where a
    missing key can be set)."""
    simulated = (view.get(SIMULATED_CHAT_VAR) or "").strip().rstrip("/")
    if config.api == "openai-chat" and simulated:
        return Credentials(SIMULATED_KEY, "the simulator's key", f"{simulated}/{provider_slug(label)}/v1")
    if config.key_env:
        found = find_key(view, config.key_env)
        if found is None:
            return MissingKey(label, config.key_env, places)
        key_var, key = found
    else:
        key_var, key = f"key_env in {config_file_name(label)}", NO_KEY
    if adapter.base_url_env is None:  # no SDK variable: the configuration's URL or nothing
        base_url = (config.base_url or "").strip() or None
        if base_url is None:
            return f"{label} is unavailable: set base_url in {config_file_name(label)}"
    else:
        base_url = resolve_base_url(view, adapter.base_url_env, config.base_url)
    return Credentials(key=key, key_var=key_var, base_url=base_url)
