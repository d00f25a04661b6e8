"""A background event loop that runs every SDK call, so the app's own loop never waits on one.

The SDKs do real CPU work on the loop that calls them: importing themselves on first use (up to
a second for anthropic), and turning a long history into a request body (hundreds of
milliseconds for a 1000-turn chat). On the app's loop that freezes typing and drawing; here it
only takes the GIL in short slices. Callers just await: results, exceptions and cancellation
cross between the loops unchanged.

The loop ends with the command (`stop_io_loop`), in order: its tasks finish or are cancelled,
the SDK clients close, its worker threads are joined, then its thread. Left running into the
interpreter's shutdown, the thread (and the SQLite calls its workers make) ran while Python
tore down the objects it used: now and then a segmentation fault after the reply was printed.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def io_loop() -> asyncio.AbstractEventLoop:
    """The shared provider loop, started on first use in a daemon thread."""
    global _loop, _thread
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="ensemble-tui-providers", daemon=True)
            thread.start()
            _loop, _thread = loop, thread
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


def stop_io_loop(closers: Iterable[Callable[[], Awaitable[object]]] = (), *, grace_s: float = 3.0) -> None:
    """End the provider loop, if it ever started: give its tasks (uploads, the deletion of an
    older copy) `grace_s` to finish and cancel the rest, run `closers` (the SDK clients'),
    join its worker threads, then stop it and join its thread. Never raises; safe to repeat."""
    global _loop, _thread
    with _lock:
        loop, thread = _loop, _thread
    if loop is None or loop.is_closed():
        return
    if thread is not None and thread.is_alive():
        future = asyncio.run_coroutine_threadsafe(_wind_down(list(closers), grace_s), loop)
        try:
            future.result(timeout=grace_s + 10.0)
        except Exception as exc:  # noqa: BLE001 - a timeout included: the shutdown goes on
            log.warning("the provider loop did not wind down cleanly: %r", exc)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5.0)
    with _lock:
        if _loop is loop:
            _loop = _thread = None
    if not loop.is_running():
        loop.close()


async def _wind_down(closers: list[Callable[[], Awaitable[object]]], grace_s: float) -> None:
    """On the provider loop: what `stop_io_loop` does before the loop stops."""
    me = asyncio.current_task()
    tasks = [task for task in asyncio.all_tasks() if task is not me]
    if tasks:
        done, pending = await asyncio.wait(tasks, timeout=grace_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:  # seen here, so none is reported as "never retrieved" at exit
            if not task.cancelled() and (exc := task.exception()) is not None:
                log.info("a provider task failed at shutdown: %s", exc)
    for close in closers:
        try:
            await close()
        except Exception as exc:  # noqa: BLE001 - one client that fails to close stops no other
            log.info("closing a provider failed: %s", exc)
    loop = asyncio.get_running_loop()
    await loop.shutdown_asyncgens()
    await loop.shutdown_default_executor()
