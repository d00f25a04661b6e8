"""Retries are visible while they wait, and a host name that does not resolve is retried once."""

from __future__ import annotations

import socket

import httpx2 as httpx

from ensemble_tui.core.chat.modes import Mode
from ensemble_tui.core.provider import ErrorKind
from ensemble_tui.core.turn.events import RetryScheduled, RunFailed
from ensemble_tui.providers.errors import host_not_found
from tests.core.helpers import of_type, run_turn
from tests.support import transient, unresolved


async def test_each_retry_is_announced_with_its_number_delay_and_reason(workspace, scripted, make_engine, sleeps):
    scripted["ChatGPT"].scripts["proposer"] = [transient("ChatGPT"), transient("ChatGPT"), "finally"]
    events = await run_turn(make_engine(), Mode.CHATGPT, "q")
    retries = of_type(events, RetryScheduled)
    assert [(r.attempt, r.allowed) for r in retries] == [(1, 5), (2, 5)]
    assert [r.delay_s for r in retries] == sleeps.delays  # announced before each wait, with that wait
    assert retries[1].line == f"ChatGPT: retry 2 of 5 in {max(1, round(sleeps.delays[1]))} s (server error)"


async def test_a_host_that_does_not_resolve_is_retried_once_then_one_line(workspace, scripted, make_engine, sleeps):
    scripted["Claude"].scripts["proposer"] = [unresolved("Claude")] * 6
    events = await run_turn(make_engine(), Mode.CLAUDE, "q")
    assert [(r.attempt, r.allowed) for r in of_type(events, RetryScheduled)] == [(1, 1)]
    assert len(scripted["Claude"].calls) == 2 and len(sleeps.delays) == 1
    (failed,) = of_type(events, RunFailed)
    assert failed.message.startswith("Claude: host not found")


def test_the_transports_name_lookup_failure_is_recognised():
    lookup = socket.gaierror(-2, "Name or service not known")
    wrapped = httpx.ConnectError("[Errno -2] Name or service not known")
    wrapped.__cause__ = lookup
    outer = RuntimeError("Connection error.")
    outer.__cause__ = wrapped
    assert host_not_found(outer) and host_not_found(lookup)
    refused = httpx.ConnectError("[Errno 111] Connection refused")
    assert not host_not_found(refused)
    assert ErrorKind.UNRESOLVED.value == "unresolved"
