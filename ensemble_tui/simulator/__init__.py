"""A loopback simulator of the provider APIs, for tests and `--demo`.

`Simulator` serves the endpoints the adapters use with bodies shaped like the real APIs', plays
scripted replies and faults per provider, and records every request: the three built-in APIs,
and Chat Completions for any number of OpenAI-compatible providers (`Simulator.chat(name)`).
`closed_port_url()` gives a base URL that refuses connections, like a local server that is not
running. `demo.start_demo()` runs one with simulated replies for `ensemble-tui --demo`.

The names below are imported on first use (PEP 562), so `--demo` can import the light
`simulator.addresses` and `simulator.standby` before its first frame without the server.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ensemble_tui.simulator.addresses import SIM_KEYS
    from ensemble_tui.simulator.script import (
        Citation,
        Fault,
        InlineFile,
        ProviderScript,
        RecordedBody,
        RecordedRequest,
        ScriptedReply,
    )
    from ensemble_tui.simulator.server import Simulator
    from ensemble_tui.simulator.wire import closed_port_url

_HOMES = {
    "SIM_KEYS": "addresses",
    "Citation": "script",
    "Fault": "script",
    "InlineFile": "script",
    "ProviderScript": "script",
    "RecordedBody": "script",
    "RecordedRequest": "script",
    "ScriptedReply": "script",
    "Simulator": "server",
    "closed_port_url": "wire",
}

__all__ = [
    "SIM_KEYS",
    "Citation",
    "Fault",
    "InlineFile",
    "ProviderScript",
    "RecordedBody",
    "RecordedRequest",
    "ScriptedReply",
    "Simulator",
    "closed_port_url",
]


def __getattr__(name: str) -> object:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
