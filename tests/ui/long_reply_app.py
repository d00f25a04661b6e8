"""The app with one scripted All turn: a 40-line reply whose claim map comes after it, read or
unreadable (issue 31's long-reply case). Used by the snapshot test
(tests/ui/test_long_reply_late_map.py) and, as `python -m tests.ui.long_reply_app HOME
{read,unreadable}`, by its tmux test, which runs the app in a real terminal.
"""

from __future__ import annotations

import asyncio
import random
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from ensemble_tui.core.provider import CallRequest, Reply, Usage
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.simulator.demo_claims import scripted_map
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.gc_schedule import CollectorPolicy
from ensemble_tui.ui.hangup import end_on_hangup
from ensemble_tui.ui.notify import RecordingNotifier
from tests.support import Held, ScriptedProvider, Step, no_sleep, role_of

QUESTION = "Walk me through attention."
FIRST_LINE = "First line of the long reply."
LAST_LINE = "Line 40, the last of the long reply."
LONG_REPLY = "\n\n".join(
    [FIRST_LINE, *(f"Line {n} of the long reply, in one sentence." for n in range(2, 40)), LAST_LINE]
)
MAP_LATE_S = 1.0  # the mapper answers this long after it is asked: after the reply is shown


class LateMapper(ScriptedProvider):
    """A scripted provider whose claim-map calls answer `map_delay_s` late."""

    map_delay_s: float = MAP_LATE_S

    async def complete(self, request: CallRequest) -> Reply:
        if role_of(request) == "mapper":
            await asyncio.sleep(self.map_delay_s)
        return await super().complete(request)


def demo_map(request: CallRequest) -> Reply:
    """The demo's claim map of the proposals in the mapper's request (a readable one)."""
    return Reply(scripted_map(request.messages[-1].text), Usage(input_tokens=1000, output_tokens=200))


def long_reply_app(home: Path, map_readable: bool, map_release: threading.Event | None = None) -> EnsembleApp:
    """ChatGPT aggregates (so it draws the map): the 40-line reply at once, the map late, the
    demo's own or prose twice (the map and its one repair). Given `map_release`, the map answers
    once the test sets it (a `Held` step), not a second late: under load, a map a second late
    could come before the test saw it pending."""
    workspace = Workspace.open(home)
    workspace.session.id = "2026-01-02_09-30-00"  # the title names it: fixed for the snapshots
    providers = {label: LateMapper(label, default=f"{label} answer") for label in ("ChatGPT", "Claude", "Gemini")}
    prose = Reply("Here are the claims, in prose.", Usage(input_tokens=1000, output_tokens=200))
    first_map: Reply | Callable[[CallRequest], Reply] = demo_map if map_readable else prose
    mapper: list[Step] = [first_map if map_release is None else Held(first_map, map_release)]
    if not map_readable:
        mapper.append("Still prose.")  # the repair's answer
    if map_release is not None:
        providers["ChatGPT"].map_delay_s = 0.0
    providers["ChatGPT"].scripts = {"aggregator": ["FINAL REPLY:\n" + LONG_REPLY], "mapper": mapper}
    workspace.attach_providers(providers, {})  # type: ignore[arg-type]
    workspace.update_settings(claim_map=True)
    engine = Engine(workspace, rng=random.Random(5), sleep=no_sleep, timeout_s=20)
    return EnsembleApp(workspace, engine=engine, notifier=RecordingNotifier(), collector=CollectorPolicy(enabled=False))


def main() -> None:
    """As `ensemble-tui` runs the app: a closed terminal ends it (ui/hangup.py). Without the watch,
    a run of this app whose tmux server the test killed was found stuck an hour later, holding its
    home."""
    end_on_hangup()
    long_reply_app(Path(sys.argv[1]), sys.argv[2] == "read").run()


if __name__ == "__main__":
    main()
