"""Test doubles shared by the test folders: scripted providers, a hanging call, no-wait sleeps,
a recording folder opener."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ensemble_tui.core.provider import CallRequest, ErrorKind, ProviderError, Reply, Usage


@dataclass
class Hang:
    """Never answer (until cancelled or timed out)."""


@dataclass
class Slow:
    reply: Reply
    seconds: float


Step = Reply | ProviderError | Hang | Slow | str | Callable[[CallRequest], "Reply | str"]

# Marker phrases from the shipped prompts, checked in order, that tell a request's role.
_ROLE_MARKERS: list[tuple[str, str]] = [
    ("Your own proposal was Proposed Reply", "synthesis"),
    ("# Proposed Reply 1:", "aggregator"),
    ("You are the chair of a panel", "chairman"),
    ("You are Agent ", "debate"),
    ("did not follow the required format", "debate"),
    ('"critiques"', "critique"),
    ("was not the JSON object", "critique"),
    ("FINAL RANKING:", "ranking"),
]


def role_of(request: CallRequest) -> str:
    """Which role a request plays, read from what the engine put in its last turn; a request
    for JSON through structured output is the claim mapper's."""
    if request.output_schema is not None:
        return "mapper"
    last = request.messages[-1].text
    for marker, role in _ROLE_MARKERS:
        if marker in last:
            return role
    return "proposer"


@dataclass
class ScriptedProvider:
    label: str
    scripts: dict[str, list[Step]] = field(default_factory=dict)  # role -> steps in order
    default: str | None = None
    calls: list[CallRequest] = field(default_factory=list)
    prepared: list[Path] = field(default_factory=list)
    map_calls: list[CallRequest] = field(default_factory=list)  # the claim mapper's, kept apart

    def prepare(self, pdf: Path) -> None:
        self.prepared.append(pdf)

    def calls_as(self, role: str) -> list[CallRequest]:
        return [call for call in self.calls if role_of(call) == role]

    async def complete(self, request: CallRequest) -> Reply:
        role = role_of(request)
        (self.map_calls if role == "mapper" else self.calls).append(request)
        if role == "mapper" and not self.scripts.get("mapper"):  # a test about other things: no map
            raise ProviderError(ErrorKind.FATAL, f"{self.label}: no claim map scripted")
        steps = self.scripts.get(role) or self.scripts.get("any") or []
        step: Step | None = steps.pop(0) if steps else None
        if step is None:
            if self.default is None:
                raise AssertionError(f"{self.label}: unscripted {role} call")
            step = self.default if role != "aggregator" else "FINAL REPLY:\n" + self.default
        if callable(step) and not isinstance(step, (Reply, ProviderError, Hang, Slow)):
            step = step(request)
        if isinstance(step, str):
            step = Reply(step, Usage(input_tokens=1000, output_tokens=200))
        if isinstance(step, Hang):
            await asyncio.Event().wait()
        if isinstance(step, Slow):
            await asyncio.sleep(step.seconds)
            step = step.reply
        if isinstance(step, ProviderError):
            raise step
        return step


def transient(label: str) -> ProviderError:
    return ProviderError(ErrorKind.TRANSIENT, f"{label}: server error (500)")


def overloaded(label: str) -> ProviderError:
    return ProviderError(ErrorKind.OVERLOADED, f"{label}: overloaded (529)")


def fatal(label: str) -> ProviderError:
    return ProviderError(ErrorKind.FATAL, f"{label}: API key rejected (401)")


async def no_sleep(_seconds: float) -> None:
    """The engine's sleep between retries, taking no time."""
    return None


class SleepRecorder:
    """The engine's sleep between retries: records each delay and takes no time."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


class FolderOpener:
    """Records the folders the app asked the desktop to open, and opens none."""

    def __init__(self) -> None:
        self.opened: list[Path] = []

    def __call__(self, path: Path) -> bool:
        self.opened.append(path)
        return False


def unresolved(label: str) -> ProviderError:
    return ProviderError(ErrorKind.UNRESOLVED, f"{label}: host not found (Name or service not known)")


def run_command(
    home: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`ensemble-tui ARGS --home HOME` in a subprocess, as a script would run it: no keys, the
    user folder beside the home, `env` added (a simulator's addresses)."""
    environment = {"PATH": os.environ["PATH"], "HOME": str(home.parent), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "ensemble_tui", *args, "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
        stdin=subprocess.DEVNULL,
        cwd=home.parent,
    )
