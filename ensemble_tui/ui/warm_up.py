"""The SDKs imported and their clients built in the background once the app has drawn itself,
so the first question does not pay for them (providers/warm.py does the work)."""

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
    from ensemble_tui.bootstrap import warm_up_providers as warm_up_all

    app.collector.pause()
    try:
        await warm_up_all(app.workspace)
    finally:
        if app.turn is None:
            app.collector.resume()
            app.collector.freeze_now()
