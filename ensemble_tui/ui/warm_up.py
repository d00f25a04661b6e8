"""The SDKs imported and their clients built in the background once the app has drawn itself,
so the first question does not pay for them (core/warm_up.py calls each adapter's `warm_up`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ensemble_tui.ui.app import EnsembleApp


async def warm_up_providers(app: EnsembleApp) -> None:
    """Warm every provider off the app's loop (on the provider loop, which only shares the GIL).

    The imports make ~200K long-lived objects: full collections wait until they are done, then
    the new objects are frozen at once, as at the end of start-up (ui/collector.py). A turn
    started meanwhile owns the collector; its end settles it.
    """
    from ensemble_tui.core.warm_up import warm_up_all

    if not any(hasattr(provider, "warm_up") for provider in app.workspace.providers.values()):
        return  # nothing to import (scripted providers in tests)
    app.collector.pause()
    try:
        await warm_up_all(app.workspace.providers)
    finally:
        if app.turn is None:
            app.collector.resume()
            app.collector.freeze_now()
