"""A first call made ahead of the first question, answered in memory.

The SDKs do much of their work the first time a call is made, not at import: they build the
pydantic schemas of the request and reply types (openai's and anthropic's models defer them;
`construct_type` makes a TypeAdapter per field type; google-genai rebuilds `HttpOptions` and its
response types on first use), and import the rest of their request path. That cost each
proposer 10-60 ms of the provider loop, one after another, in the first turn after start (bench
row 8). So the warm-up rehearses: it runs the adapter's own `_call` once, its request built as a
real one is, on a client whose transport answers in memory with a reply body of the API's
documented shape (providers/warm_replies.py). Then it looks up the API's host name, as the first
connection would.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ensemble_tui.core.provider import CallRequest, Reply, Turn

if TYPE_CHECKING:
    from ensemble_tui.providers.base import SdkProvider

log = logging.getLogger(__name__)

POLL_S = 0.005
_unsent: set[object] = set()  # real calls whose request has not left yet (on the provider loop)
_current_call: ContextVar[object | None] = ContextVar("ensemble_tui_current_call", default=None)

# A history, the PDF, web search, a temperature and a reasoning effort: the request builds every
# part a real one can have (an adapter leaves out what its API does not take with the rest).
REHEARSAL = CallRequest(
    model="rehearsal",
    system="s",
    messages=(Turn("user", "q"), Turn("assistant", "a"), Turn("user", "q")),
    temperature=1.0,
    web_search=True,
    reasoning_effort="low",
)


@contextmanager
def until_sent() -> Iterator[None]:
    """Around a real call: from its start until its request leaves (`request_leaving`) or the
    call ends, rehearsals wait. A rehearsal holds the provider loop for 10-60 ms without a
    break, and must not hold back a request: in `ask` the first calls are queued while the SDKs
    are still being imported, and their requests should all leave before any rehearsal runs
    (which then runs while the models think)."""
    token = object()
    _unsent.add(token)
    reset = _current_call.set(token)
    try:
        yield
    finally:
        _unsent.discard(token)
        _current_call.reset(reset)


async def request_leaving(request: Any) -> None:
    """The real clients' httpx request hook: once this request is written out (its body sent,
    as httpcore's `trace` extension reports), the current call no longer holds rehearsals back.
    Only then: connecting can pause the call (the host name's lookup runs in a thread), and a
    rehearsal running in that pause held the request back by its whole length. An upload's
    request counts too: the call then waits on the network, not on the loop."""
    token = _current_call.get()
    if token is None:
        return

    async def sent(event: str, info: dict[str, Any]) -> None:
        if event.endswith("send_request_body.complete"):
            _unsent.discard(token)

    request.extensions["trace"] = sent


def http_client_options(transport: object = None) -> dict[str, Any]:
    """Options for an SDK's httpx client: the rehearsal's in-memory `transport`, or for a real
    client the request hook above (the SDK's defaults otherwise stay)."""
    if transport is not None:
        return {"transport": transport}
    return {"event_hooks": {"request": [request_leaving]}}


async def rehearsal_call(adapter: SdkProvider) -> Reply:
    """`adapter`'s own call, answered with its canned reply; what the adapter made of it.

    The stand-in is a copy of the adapter with a client of its own on an in-memory transport:
    a real call started meanwhile still goes out through the real client.
    """
    import httpx2

    while _unsent:
        await asyncio.sleep(POLL_S)
    body = adapter.canned_reply()

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=body)

    stand_in = copy.copy(adapter)
    stand_in._client_instance = adapter._make_client(httpx2.MockTransport(answer))
    try:
        return await stand_in._call(REHEARSAL, adapter.rehearsal_file_ref)
    finally:
        await stand_in._close_client()


async def look_up_host(adapter: SdkProvider) -> None:
    """Resolve the API's host name through anyio, as the SDKs' transport does when it first
    connects (anyio imports its socket layer then, ~15 ms): the first request waits for neither.
    A name that does not resolve is left for that request to report."""
    import anyio

    parts = urlsplit(adapter.base_url or "")
    if not parts.hostname:
        return
    try:
        await anyio.getaddrinfo(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    except OSError as exc:
        log.info("%s: %s does not resolve yet: %s", adapter.label, parts.hostname, exc)
