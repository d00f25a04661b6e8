"""Reply notifications: desktop when dispatched, else bell + toast + OSC escapes; never hangs."""

from __future__ import annotations

import asyncio
import sys
import types

import pytest

from ensemble_tui.ui import notify
from ensemble_tui.ui.notify import SystemNotifier, notification_escapes


class FakeDriver:
    def __init__(self) -> None:
        self.written: list[str] = []

    def write(self, data: str) -> None:
        self.written.append(data)


class FakeApp:
    """Just what terminal_fallback touches."""

    is_headless = False

    def __init__(self) -> None:
        self.bells = 0
        self.toasts: list[tuple[str, str, bool]] = []
        self._driver = FakeDriver()

    def bell(self) -> None:
        self.bells += 1

    def notify(self, message: str, *, title: str = "", markup: bool = True, **_: object) -> None:
        self.toasts.append((message, title, markup))


def install_fake_desktop_notifier(monkeypatch: pytest.MonkeyPatch, behaviour: str) -> list[str]:
    sent: list[str] = []

    class FakeDesktopNotifier:
        def __init__(self, app_name: str) -> None:
            self.app_name = app_name

        async def send(self, title: str, message: str, on_dispatched=None, **_: object) -> str:
            sent.append(f"{title}: {message}")
            if behaviour == "hang":
                await asyncio.Event().wait()
            if behaviour == "raise":
                raise RuntimeError("no bus")
            if behaviour == "dispatch" and on_dispatched:
                on_dispatched()
            return "id"

    module = types.ModuleType("desktop_notifier")
    module.DesktopNotifier = FakeDesktopNotifier  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "desktop_notifier", module)
    monkeypatch.setattr(notify, "desktop_service_likely", lambda: True)
    return sent


async def test_desktop_notification_when_dispatched(monkeypatch):
    sent = install_fake_desktop_notifier(monkeypatch, "dispatch")
    app = FakeApp()
    assert await SystemNotifier().reply_complete(app, "All replied in 3s.") == "desktop"  # type: ignore[arg-type]
    assert sent == ["Reply complete: All replied in 3s."]
    assert app.bells == 0 and app.toasts == []


@pytest.mark.parametrize("behaviour", ["silent", "raise", "hang"])
async def test_terminal_fallback_when_nothing_was_dispatched(monkeypatch, behaviour):
    install_fake_desktop_notifier(monkeypatch, behaviour)
    app = FakeApp()
    outcome = await SystemNotifier(timeout_s=0.05).reply_complete(app, "Done.")  # type: ignore[arg-type]
    assert outcome == "terminal"
    assert app.bells == 1
    assert app.toasts == []  # in-app toasts are for errors; the status line says the reply is complete
    assert app._driver.written == [notification_escapes("Reply complete", "Done.")]


async def test_no_session_bus_skips_the_desktop_notifier(monkeypatch):
    sent = install_fake_desktop_notifier(monkeypatch, "dispatch")
    monkeypatch.setattr(notify, "desktop_service_likely", lambda: False)
    app = FakeApp()
    assert await SystemNotifier().reply_complete(app, "x") == "terminal"  # type: ignore[arg-type]
    assert sent == []


def test_desktop_service_needs_a_session_bus_on_linux(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    assert notify.desktop_service_likely() is False
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1/bus")
    assert notify.desktop_service_likely() is True


def test_escapes_are_well_formed_and_carry_no_control_characters():
    escapes = notification_escapes("Reply complete", "bad\x1b]52;c;x\x07 text; more")
    assert escapes.startswith("\x1b]9;Reply complete: bad]52cx text more\x07")
    assert escapes.endswith("\x1b]777;notify;ensemble-tui;Reply complete: bad]52cx text more\x07")
    assert escapes.count("\x1b") == 2 and escapes.count("\x07") == 2
