"""A loopback simulator of the three provider APIs, for tests and `--demo`.

`Simulator` serves the endpoints the adapters use with bodies shaped like the real APIs', plays
scripted replies and faults per provider, and records every request. `demo.start_demo()` runs
one with simulated replies for `ensemble-tui --demo`.
"""

from ensemble_tui.simulator.script import Citation, Fault, ProviderScript, RecordedRequest, ScriptedReply
from ensemble_tui.simulator.server import SIM_KEYS, Simulator

__all__ = ["SIM_KEYS", "Citation", "Fault", "ProviderScript", "RecordedRequest", "ScriptedReply", "Simulator"]
