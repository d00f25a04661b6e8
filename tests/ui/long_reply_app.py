"""The app on the demo simulator with one scripted All turn: a 40-line reply whose claim map
comes after it, read or unreadable (issue 31's long-reply case). Used by the snapshot test
(tests/ui/test_long_reply_late_map.py) and, as `python -m tests.ui.long_reply_app HOME
{read,unreadable}`, by its tmux test, which runs the app in a real terminal.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from pathlib import Path

from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator.demo import REVISED_MARK, DemoSimulator
from ensemble_tui.simulator.demo_claims import MAP_MARK
from ensemble_tui.simulator.script import ScriptedReply
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier
from tests.support import no_sleep

QUESTION = "Walk me through attention."
FIRST_LINE = "First line of the long reply."
LAST_LINE = "Line 40, the last of the long reply."
LONG_REPLY = "\n\n".join(
    [FIRST_LINE, *(f"Line {n} of the long reply, in one sentence." for n in range(2, 40)), LAST_LINE]
)
MAP_LATE_S = 1.5  # the map's call answers this long after the reply's


def script_turn(sim: DemoSimulator, map_readable: bool) -> None:
    """ChatGPT (the aggregator, so the mapper) writes the 40-line reply in the final pass; its
    map comes MAP_LATE_S later: the demo's own, or prose twice (the map and its one repair). The
    demo's aggregator asks for one more round first: each of its two passes draws a map."""
    sim.openai.push(ScriptedReply(LONG_REPLY, match=REVISED_MARK, unless=MAP_MARK))
    if not map_readable:
        for _ in range(2):
            sim.openai.push(
                ScriptedReply("Here are the claims, in prose.", match=MAP_MARK, latency_s=MAP_LATE_S),
                ScriptedReply("Still prose.", match="not the JSON claim map"),
            )
        return
    respond = sim.openai.default

    def slowly(request):  # type: ignore[no-untyped-def]
        reply = respond(request)  # type: ignore[operator]
        return dataclasses.replace(reply, latency_s=MAP_LATE_S) if MAP_MARK in request.text else reply

    sim.openai.default = slowly


def long_reply_app(home: Path, sim: DemoSimulator, map_readable: bool) -> EnsembleApp:
    """The app, its providers the real SDKs' adapters pointed at `sim`, the map on."""
    workspace = Workspace.open(home)
    providers, unavailable = build_providers(workspace, env=sim.env)
    workspace.attach_providers(providers, unavailable)
    workspace.update_settings(claim_map=True)
    script_turn(sim, map_readable)
    engine = Engine(workspace, rng=random.Random(5), sleep=no_sleep, timeout_s=20)
    return EnsembleApp(workspace, engine=engine, notifier=RecordingNotifier())


def main() -> None:
    home, readable = Path(sys.argv[1]), sys.argv[2] == "read"
    with DemoSimulator(seed=3, latency=(0.0, 0.0)) as sim:
        long_reply_app(home, sim, readable).run()


if __name__ == "__main__":
    main()
