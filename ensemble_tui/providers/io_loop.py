"""A background event loop that runs every SDK call, so the app's own loop never waits on one.

The SDKs do real CPU work on the loop that calls them: importing themselves on first use (up to
a second for anthropic), and turning a long history into a request body (hundreds of
milliseconds for a 1000-turn chat). On the app's loop that freezes typing and drawing; here it
only takes the GIL in short slices. Callers just await: results, exceptions and cancellation
cross between the loops unchanged.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def io_loop() -> asyncio.AbstractEventLoop:
    """The shared provider loop, started on first use in a daemon thread."""
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="ensemble-tui-providers", daemon=True)
            thread.start()
            _loop = loop
        return _loop


async def on_io_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Await `coro` run on the provider loop; cancelling the caller cancels it there too."""
    loop = io_loop()
    if asyncio.get_running_loop() is loop:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


def call_soon(callback: Any, *args: Any) -> None:
    """Schedule a plain callback on the provider loop (e.g. starting a background upload)."""
    io_loop().call_soon_threadsafe(callback, *args)
