"""SDK work runs on the provider loop, never on the caller's; results, errors and
cancellation cross between the two loops unchanged."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ensemble_tui.core.provider import CallRequest, ErrorKind, Message, ProviderError, Reply
from ensemble_tui.providers.base import SdkProvider
from ensemble_tui.providers.credentials import Credentials


class Probe(SdkProvider):
    base_url_env = None

    def __init__(self, behaviour: str) -> None:
        super().__init__("Probe", Credentials(key="k", key_var="PROBE_KEY"))
        self.behaviour = behaviour
        self.thread = ""
        self.cancelled = threading.Event()

    async def _call(self, request: CallRequest, file_ref: str | None) -> Reply:
        self.thread = threading.current_thread().name
        if self.behaviour == "fail":
            raise ProviderError(ErrorKind.FATAL, "Probe: API key rejected (401)")
        if self.behaviour == "hang":
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        return Reply("ok")


REQUEST = CallRequest(model="m", system="", messages=(Message("user", "q"),))


async def test_calls_run_on_the_provider_thread_and_return_their_reply() -> None:
    probe = Probe("ok")
    assert (await probe.complete(REQUEST)).text == "ok"
    assert probe.thread == "ensemble-tui-providers" != threading.current_thread().name


async def test_errors_arrive_as_they_were_raised() -> None:
    with pytest.raises(ProviderError, match="API key rejected"):
        await Probe("fail").complete(REQUEST)


async def test_cancelling_the_caller_cancels_the_call_on_the_provider_loop() -> None:
    probe = Probe("hang")
    task = asyncio.create_task(probe.complete(REQUEST))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(probe.cancelled.wait, 5)
