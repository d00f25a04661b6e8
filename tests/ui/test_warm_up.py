"""The app imports the SDKs and builds the provider clients once it has drawn itself, off its
event loop and without a request, so the first question finds them ready (issue 18, section 5).
Real SDK adapters against the loopback simulator."""

from __future__ import annotations

import threading

from ensemble_tui.core.workspace import Workspace
from ensemble_tui.providers.base import SdkProvider
from ensemble_tui.providers.registry import build_providers
from ensemble_tui.simulator.demo import DemoSimulator
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.notify import RecordingNotifier
from tests.ui.conftest import SIZE, wait_until


async def test_every_client_is_built_after_start_up_off_the_loop_with_no_request(home, monkeypatch):
    order: list[str] = []
    threads: dict[str, str] = {}
    original = SdkProvider._client

    def recording(self: SdkProvider):
        if self._client_instance is None:
            order.append(self.label)
            threads[self.label] = threading.current_thread().name
        return original(self)

    monkeypatch.setattr(SdkProvider, "_client", recording)
    with DemoSimulator(seed=1, latency=(0.0, 0.0)) as sim:
        workspace = Workspace.open(home)
        workspace.attach_providers(*build_providers(workspace, env=sim.env))
        app = EnsembleApp(workspace, notifier=RecordingNotifier(), after_start_up=lambda: order.append("start-up over"))
        try:
            async with app.run_test(size=SIZE) as pilot:
                providers = workspace.providers.values()
                await wait_until(pilot, lambda: all(p._client_instance is not None for p in providers), timeout=30)
                assert set(threads) == set(workspace.providers)
                assert app.main.chat.input.has_focus  # the app stayed usable meanwhile
        finally:
            for adapter in workspace.providers.values():
                await adapter.aclose()  # type: ignore[attr-defined]
            workspace.close()
        assert order[0] == "start-up over", order  # none before the first frame was drawn
        assert threading.main_thread().name not in threads.values(), threads  # not on the app's loop
        assert all(not script.calls and not script.uploads for script in sim.scripts.values())  # no request
