"""Telling the user a reply is complete: a desktop notification, else the terminal.

desktop-notifier neither raises nor hangs without a notification service (SSH, headless, no
D-Bus): `send()` just logs a warning. So success is judged by its `on_dispatched` callback, its
logger is silenced (a warning on stderr would scribble over the screen), the send is bounded by a
timeout, and when nothing was dispatched the terminal is used instead: the bell and the OSC 9 /
OSC 777 notification escapes (iTerm2, kitty, WezTerm, foot, Ghostty, rxvt, ...).
Tests pass a recording notifier, so no test ever reaches the real one.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Any, Protocol

from textual.app import App

APP_NAME = "ensemble-tui"
TITLE = "Reply complete"
SEND_TIMEOUT_S = 5.0


class ReplyNotifier(Protocol):
    async def reply_complete(self, app: App[Any], summary: str) -> str:
        """Tell the user; return how ("desktop", "terminal", or "none")."""
        ...


class RecordingNotifier:
    """Remembers what it was asked to announce; the default in tests and for `App()` alone."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def reply_complete(self, app: App[Any], summary: str) -> str:
        self.sent.append(summary)
        return "none"


def desktop_service_likely() -> bool:
    """False where a desktop notification cannot possibly be shown (Linux without a session bus)."""
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DBUS_SESSION_BUS_ADDRESS"))
    return True


def notification_escapes(title: str, body: str) -> str:
    """OSC 9 (iTerm2 style) and OSC 777 (rxvt/foot/kitty/Ghostty style); unknown OSCs are ignored."""
    clean = "".join(ch for ch in f"{title}: {body}" if ch.isprintable() and ch not in ";")
    return f"\x1b]9;{clean}\x07\x1b]777;notify;{APP_NAME};{clean}\x07"


def terminal_fallback(app: App[Any], body: str) -> None:
    """The bell and the terminal notification escapes written through the driver (no in-app
    toast: those are for errors, and the status line already says the reply is complete)."""
    app.bell()
    # No public API writes raw bytes to the terminal; App.copy_to_clipboard uses the driver the
    # same way for OSC 52. Headless drivers (tests) simply discard the bytes.
    driver = getattr(app, "_driver", None)
    if driver is not None and not app.is_headless:
        try:
            driver.write(notification_escapes(TITLE, body))
        except Exception:  # a terminal that went away must not take the app with it
            logging.getLogger(__name__).debug("cannot write the notification escape", exc_info=True)


class SystemNotifier:
    """desktop-notifier first, the terminal when no notification was dispatched."""

    def __init__(self, timeout_s: float = SEND_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._notifier: Any = None

    async def _send_desktop(self, body: str) -> bool:
        if not desktop_service_likely():
            return False
        dispatched = asyncio.Event()
        try:
            if self._notifier is None:
                from desktop_notifier import DesktopNotifier  # imported late: it pulls in D-Bus code

                logging.getLogger("desktop_notifier").setLevel(logging.CRITICAL + 1)
                self._notifier = DesktopNotifier(app_name=APP_NAME)
            async with asyncio.timeout(self.timeout_s):
                await self._notifier.send(title=TITLE, message=body, on_dispatched=dispatched.set)
        except Exception:  # any failure of the notifier means: use the terminal
            logging.getLogger(__name__).debug("desktop notification failed", exc_info=True)
            return False
        return dispatched.is_set()

    async def reply_complete(self, app: App[Any], summary: str) -> str:
        if await self._send_desktop(summary):
            return "desktop"
        terminal_fallback(app, summary)
        return "terminal"
