"""What the first question needs, made ready in the background once the app has drawn itself:
the engine and its styles imported, and each provider's SDK imported, its client built and the
SDK models its calls use built (core/turn/warm_up.py, `SdkProvider.warm_up`). Without it the
first turn paid ~45 ms for the engine's import on the app's loop, and up to a second for the
SDK imports before the first requests left (bench row 8)."""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Protocol

# Imported on the first turn (the app imports them lazily so they stay out of start-up).
TURN_MODULES = ("ensemble_tui.core.turn.engine",)


class Collector(Protocol):
    """The part of the app's garbage-collector schedule (ui/gc_schedule.py) the warm-up uses."""

    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def freeze_now(self) -> None: ...


async def warm_up_providers(
    providers: Mapping[str, object], collector: Collector, turn_on_screen: Callable[[], bool]
) -> None:
    """Warm the engine and every provider off the app's loop: the engine's import in a worker
    thread and the providers on the provider loop, which only share the GIL with the app, in
    slices short enough for typing to stay smooth.

    The imports make ~200K long-lived objects: full collections wait until they are done, then
    the new objects are frozen at once, as at the end of start-up (ui/gc_schedule.py). A turn
    started meanwhile owns the collector; its end settles it (`turn_on_screen` says whether one is
    on screen).
    """
    from ensemble_tui.core.turn.warm_up import Warmable, warm_up_each

    modules = [module for module in TURN_MODULES if module not in sys.modules]
    sdks = any(isinstance(provider, Warmable) for provider in providers.values())
    if not modules and not sdks:
        return  # nothing to do (scripted providers in tests, the engine made already)
    collector.pause()
    try:
        for module in modules:
            await asyncio.to_thread(importlib.import_module, module)
        await warm_up_each(providers)  # one provider a step: a question asked meanwhile cuts in
    finally:
        if not turn_on_screen():
            collector.resume()
            collector.freeze_now()
