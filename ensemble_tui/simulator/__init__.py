"""A loopback simulator of the provider APIs, for tests and `--demo`.

`Simulator` serves the endpoints the adapters use with bodies shaped like the real APIs', plays
scripted replies and faults per provider, and records every request: the three built-in APIs,
and Chat Completions for any number of OpenAI-compatible providers (`Simulator.chat(name)`).
`closed_port_url()` gives a base URL that refuses connections, like a local server that is not
running. `demo.start_demo()` runs one with simulated replies for `ensemble-tui --demo`.
"""

from ensemble_tui.simulator.script import (
    Citation,
    Fault,
    InlineFile,
    ProviderScript,
    RecordedRequest,
    ScriptedReply,
)
from ensemble_tui.simulator.server import SIM_KEYS, Simulator
from ensemble_tui.simulator.wire import closed_port_url

__all__ = [
    "SIM_KEYS",
    "Citation",
    "Fault",
    "InlineFile",
    "ProviderScript",
    "RecordedRequest",
    "ScriptedReply",
    "Simulator",
    "closed_port_url",
]
