"""Where each simulated API lives on the simulator's port, and the variables that send the SDKs
there. Kept apart from the server so `--demo` can hand these to the providers before the app's
first frame and start the server after it (simulator/standby.py)."""

from __future__ import annotations

from ensemble_tui.providers.credentials import SIMULATED_CHAT_VAR

# Each API under its own path prefix on one port.
OPENAI_PREFIX = "/openai"  # base URL: <server>/openai/v1
ANTHROPIC_PREFIX = "/anthropic"  # base URL: <server>/anthropic (the SDK adds /v1)
GEMINI_PREFIX = "/gemini"  # base URL: <server>/gemini
CHAT_PREFIX = "/chat"  # base URL: <server>/chat/<name>/v1

# Dummy keys: obviously fake, and distinct so a test can tell which one leaked where.
SIM_KEYS = {
    "OPENAI_API_KEY": "sk-sim-openai-key-0000",
    "ANTHROPIC_API_KEY": "sk-ant-sim-anthropic-key-0000",
    "GEMINI_API_KEY": "sim-gemini-key-0000",
}


def base_urls(url: str) -> dict[str, str]:
    """The three built-in SDKs' base URLs on the simulator at `url` (http://host:port)."""
    return {
        "openai": f"{url}{OPENAI_PREFIX}/v1",
        "anthropic": f"{url}{ANTHROPIC_PREFIX}",
        "gemini": f"{url}{GEMINI_PREFIX}",
    }


def environment(url: str) -> dict[str, str]:
    """Base URL and dummy key variables that point all three SDKs at the simulator at `url`, and
    every OpenAI-compatible provider to its own `/chat/<name>` (see providers.registry)."""
    urls = base_urls(url)
    return {
        "OPENAI_BASE_URL": urls["openai"],
        "ANTHROPIC_BASE_URL": urls["anthropic"],
        "GOOGLE_GEMINI_BASE_URL": urls["gemini"],
        SIMULATED_CHAT_VAR: f"{url}{CHAT_PREFIX}",
        **SIM_KEYS,
    }
