"""Measurements that need a fresh process (memory, a clean event loop): `python -m bench.child
TASK JSON_ARGS` prints one JSON object as its last line. The parent (bench.ui_rows) builds the
home folders and starts the simulator; everything imported here is imported before the clock
starts, because import time is row 5's subject, not these rows'.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import string
import sys
import time
from pathlib import Path
from typing import Any

from textual import events

from bench.apps import NaiveChatApp, open_ensemble_app, run_headless
from bench.content import marker, start_marker
from bench.probes import FrameProbe, LagMonitor, memory_mb, percentile
from ensemble_tui.bootstrap import collector_hold
from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.store.home import seed_home
from ensemble_tui.core.store.session_store import SessionStore
from ensemble_tui.ui.chat_log.rendering import set_math_rendering

KEY_INTERVAL_S = 0.1  # a fast typist: ten keys a second
KEY_TAIL = 6  # a key has arrived when the focused widget's text ends with the last KEY_TAIL letters typed
KEY_TIMEOUT_S = 3.0


def open_chat(args: dict[str, Any]) -> dict[str, Any]:
    """Row 2: from opening the session to the first frame that shows the newest reply's end.

    The app is built outside the event loop, as `ensemble-tui` builds it before `app.run()`,
    and with automatic garbage collection held off until its start-up is over, as the command
    holds it (`collector_hold`): otherwise a full collection the app never makes could fall on
    one side of a comparison (it did, 25-28 ms, on row 2.c's math side). `math`: LaTeX shown as
    text (the default) or raw; the math converter is not imported before the clock starts, as the
    app imports it only for the first reply with math.
    """
    if args["app"] == "naive":
        return _open_chat(args)
    with collector_hold(True):
        return _open_chat(args)


def _open_chat(args: dict[str, Any]) -> dict[str, Any]:
    set_math_rendering(args.get("math", True))
    home = Path(args["home"])
    # The app reopens a chat at its last reply's start; the naive app scrolls to the end.
    needle = marker(args["turns"]) if args["app"] == "naive" else start_marker(args["turns"])
    started = time.perf_counter()
    cpu_started = time.process_time()
    if args["app"] == "naive":
        paths = seed_home(home)
        session, _ = SessionStore(paths, RunArchive(paths.archive)).load()
        app: Any = NaiveChatApp(session.history)
        ready = lambda: app.complete  # noqa: E731 - every Markdown widget has mounted its blocks
    else:
        app, _workspace, _times = open_ensemble_app(home, args["env"])
        ready = lambda: True  # noqa: E731

    async def measure() -> dict[str, Any]:
        probe = FrameProbe(app)
        shown = probe.wait_for(needle, ready=ready)

        async def body() -> dict[str, Any]:
            at = await shown
            cpu = time.process_time() - cpu_started  # the process's CPU time: a busy machine moves it less
            return {"seconds": at - started, "cpu": cpu, "frames": probe.count, **memory_mb()}

        return await run_headless(app, body, args["timeout"])

    return asyncio.run(measure())


class Typist:
    """Types random letters into the focused widget through the driver, as a terminal would,
    and times each key until the first frame drawn once the widget holds it.

    Frames carry only what changed, so the key is recognised by the focused widget's text (its
    last KEY_TAIL letters), not by searching the frame: the first frame drawn after the widget
    took the key is the one that shows it.
    """

    def __init__(self, app: Any, probe: FrameProbe, seed: int) -> None:
        self.app = app
        self.probe = probe
        self.rng = random.Random(seed)
        self.typed = ""
        self.delays: list[float] = []
        self.missed = 0

    def send(self, message: events.Event) -> None:
        message.set_sender(self.app)
        self.app._driver.send_message(message)  # what the driver's input thread does

    def holds(self, text: str) -> bool:
        return str(getattr(self.app.focused, "text", "")).endswith(text)

    async def type_for(self, seconds: float, until: asyncio.Future[Any] | None = None) -> None:
        """Type for `seconds` (or until `until` is done), a key every KEY_INTERVAL_S."""
        self.typed = ""
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline and not (until is not None and until.done()):
            letter = self.rng.choice(string.ascii_lowercase)
            self.typed += letter
            tail = self.typed[-KEY_TAIL:]
            pressed = time.perf_counter()
            shown = self.probe.wait_for("", after=pressed, ready=lambda tail=tail: self.holds(tail))
            self.send(events.Key(letter, letter))
            try:
                at = await asyncio.wait_for(asyncio.shield(shown), KEY_TIMEOUT_S)
                self.delays.append(at - pressed)
            except TimeoutError:
                self.missed += 1
            await asyncio.sleep(max(0.0, KEY_INTERVAL_S - (time.perf_counter() - pressed)))


async def wait_opened(app: Any, probe: FrameProbe, turns: int) -> None:
    await probe.wait_for(start_marker(turns) if turns else "")  # an empty chat: its first frame
    await asyncio.sleep(0.3)  # let start-up work (timers, cursor blink) settle


async def send_question(typist: Typist, text: str) -> float:
    """Paste `text` into the question box and press Enter; returns when Enter was sent."""
    typist.send(events.Paste(text))
    await typist.probe.wait_for("", ready=lambda: typist.holds(text))
    pressed = time.perf_counter()
    typist.send(events.Key("enter", "\r"))
    return pressed


def append_reply(args: dict[str, Any]) -> dict[str, Any]:
    """Row 3: in a chat of `turns` turns, ask a question (single mode, the model answers at once)
    and time Enter -> the first frame showing the reply's first line (a reply arrives shown from
    its start, its question above); the adapter call's share is recorded too. The first question
    is a warm-up (it imports the SDK and uploads the PDF)."""
    app, _workspace, times = open_ensemble_app(Path(args["home"]), args["env"])
    return asyncio.run(_append_reply(app, times, args))


async def _append_reply(app: Any, times: Any, args: dict[str, Any]) -> dict[str, Any]:
    probe = FrameProbe(app)
    typist = Typist(app, probe, seed=1)

    async def body() -> dict[str, Any]:
        await wait_opened(app, probe, args["turns"])
        results = []
        for attempt in range(args["repeats"] + 1):
            name = f"NEW{attempt}"
            times.spans.clear()
            shown = probe.wait_for(start_marker(name))
            pressed = await send_question(typist, f"[lat=0] [reply={name}] Please add reply {name}.")
            try:
                at = await asyncio.wait_for(asyncio.shield(shown), args["reply_timeout"])
            except TimeoutError:  # the reply's start never came into view
                results.append({"missed": True})
            else:
                model = sum(end - start for _label, start, end in times.spans)
                results.append({"total": at - pressed, "model": model, "app": at - pressed - model})
            # A reply that came late (the first, which imports the SDKs and uploads the paper, can
            # take longer than the timeout on a loaded machine) must not refuse the next question
            # ("a reply is under way"), which would count as missed too.
            await _turn_over(app, args["reply_timeout"] * 4)
            await asyncio.sleep(0.3)
        return {"warmup": results[0], "runs": results[1:], **memory_mb()}

    return await run_headless(app, body, args["timeout"])


async def _turn_over(app: Any, limit_s: float) -> None:
    """Wait (at most `limit_s`) until no reply is under way in the app."""
    deadline = time.perf_counter() + limit_s
    while app.main.turns.running and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)


def responsiveness(args: dict[str, Any]) -> dict[str, Any]:
    """Row 4: event-loop lag and keypress-to-screen, first idle (the baseline), then during an
    All turn whose proposers each return `big` characters: the first turn after opening the
    chat (it pays for the SDK imports and the PDF uploads, as a user's first question does),
    then a second one."""
    app, _workspace, times = open_ensemble_app(Path(args["home"]), args["env"])
    return asyncio.run(_responsiveness(app, times, args))


async def _responsiveness(app: Any, times: Any, args: dict[str, Any]) -> dict[str, Any]:
    probe = FrameProbe(app)
    typist = Typist(app, probe, seed=2)
    monitor = LagMonitor()

    def summary(lags: list[float], delays: list[float], missed: int) -> dict[str, Any]:
        return {
            "lag_p99": percentile(lags, 0.99),
            "lag_max": max(lags, default=float("nan")),
            "lag_samples": len(lags),
            "key_p99": percentile(delays, 0.99),
            "key_median": percentile(delays, 0.5),
            "keys": len(delays),
            "keys_missed": missed,
        }

    async def phase(seconds: float, until: asyncio.Future[Any] | None = None) -> dict[str, Any]:
        typist.delays, typist.missed = [], 0
        monitor.start()
        await typist.type_for(seconds, until)
        lags = await monitor.stop()
        return {**summary(lags, typist.delays, typist.missed), "lags": lags, "delays": list(typist.delays)}

    async def body() -> dict[str, Any]:
        await wait_opened(app, probe, args["turns"])
        idle = await phase(args["idle_s"])
        turns = []
        for number in range(1, 2 + args.get("later_turns", 1)):
            final = probe.wait_for(f"Question {number} answered")
            await send_question(typist, f"[big={args['big']}] Question {number}: compare every style in depth.")
            started = time.perf_counter()
            await asyncio.sleep(0.2)  # keys typed at once could race Enter's submit for the box
            busy = await phase(args["turn_timeout"], until=final)
            turns.append({**busy, "turn_s": time.perf_counter() - started, "answered": final.done()})
            if not final.done():
                from bench.apps import _svg_text

                print(
                    f"turn {number}: no final reply; the screen:\n{_svg_text(app.export_screenshot())}", file=sys.stderr
                )
            await asyncio.sleep(0.5)
        if len(turns) < 2:  # the smoke run types through the first turn only (Sizes.later_turns 0)
            return {"idle": idle, "first": turns[0], "calls": len(times.spans), **memory_mb()}
        later = turns[1:]
        second = summary(
            [lag for turn in later for lag in turn["lags"]],
            [delay for turn in later for delay in turn["delays"]],
            sum(turn["keys_missed"] for turn in later),
        )
        second.update(turn_s=statistics.median(t["turn_s"] for t in later), answered=all(t["answered"] for t in later))
        slim = [{k: v for k, v in t.items() if k not in ("lags", "delays")} for t in (idle, turns[0])]
        return {"idle": slim[0], "first": slim[1], "second": second, "calls": len(times.spans), **memory_mb()}

    return await run_headless(app, body, args["timeout"])


def first_turn(args: dict[str, Any]) -> dict[str, Any]:
    """Row 8.a: a fresh app in a chat whose uploads are kept from an earlier run (a restart):
    the first All question, pasted `delay` seconds after the first frame; Enter to the final
    reply on screen, and the model calls' critical path. `warm: false` leaves out the app's
    warm-up (the baseline: the SDKs imported by the first calls)."""
    from ensemble_tui.ui import warm_up

    async def no_warm_up(*_args: Any) -> None:
        return None

    warm_up_providers = warm_up.warm_up_providers
    if not args["warm"]:
        warm_up.warm_up_providers = no_warm_up  # type: ignore[assignment]
    try:
        app, _workspace, times = open_ensemble_app(Path(args["home"]), args["env"])
        return asyncio.run(_first_turn(app, times, args))
    finally:
        warm_up.warm_up_providers = warm_up_providers  # type: ignore[assignment]


async def _first_turn(app: Any, times: Any, args: dict[str, Any]) -> dict[str, Any]:
    probe = FrameProbe(app)
    typist = Typist(app, probe, seed=3)

    async def body() -> dict[str, Any]:
        first = await probe.wait_for("")
        await asyncio.sleep(max(0.0, first + args["delay"] - time.perf_counter()))
        number = args["number"]
        shown = probe.wait_for(f"Question {number} answered")
        times.spans.clear()
        question = f"[one-pass] Question {number}: what does the paper claim about aggregation?"
        pressed = await send_question(typist, question)
        at = await asyncio.wait_for(asyncio.shield(shown), args["turn_timeout"])
        from bench.turn_rows import waves  # after the clock: it imports httpx2, which Gemini's client uses

        sizes = waves(times.spans, args["latency"])
        critical = len(sizes) * args["latency"]
        return {"total": at - pressed, "critical": critical, "sizes": sizes, "over": at - pressed - critical}

    return await run_headless(app, body, args["timeout"])


def ask_turn(args: dict[str, Any]) -> dict[str, Any]:
    """Row 8.b: `ensemble-tui ask --mode all` as the command runs it (commands/ask.py, in its
    shared context), in a fresh process, against the benchmark's simulator, its adapters timed:
    from the first model call to the last answer, and the waves of calls. `warm: false` runs it
    without the warm-up. The wall time counts the home's opening, as the command's does."""
    import contextlib
    import io

    import httpx2

    from bench.apps import timed_providers
    from ensemble_tui import bootstrap
    from ensemble_tui.cli import build_parser
    from ensemble_tui.commands import ask, ask_turn
    from ensemble_tui.commands.context import command_context

    async def no_warm_up(workspace: Any, turn: Any) -> Any:
        return await turn

    timed: dict[str, Any] = {}
    attach_providers, beside_warm_up = bootstrap.attach_providers, ask_turn.beside_warm_up

    def attach(workspace: Any, env: Any, *rest: Any, **options: Any) -> None:
        """`bootstrap.attach_providers` as `ask` calls it (whatever its options), with the
        benchmark's simulator for `env`; then its adapters timed."""
        attach_providers(workspace, args["env"], *rest, **options)
        timed["times"] = timed_providers(workspace)

    if not args["warm"]:
        ask_turn.beside_warm_up = no_warm_up  # type: ignore[assignment]
    bootstrap.attach_providers = attach  # type: ignore[assignment]
    sent = requests_sent()
    question = f"[one-pass] Question {args['number']}: what does the paper claim about aggregation?"
    parsed = build_parser().parse_args(["ask", "--home", str(args["home"]), "--mode", "all", question])
    started = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            with command_context(parsed, ask.NEEDS) as context:
                code = ask.run(parsed, context)
    finally:  # the smoke run's next task shares this process (run_here)
        bootstrap.attach_providers, ask_turn.beside_warm_up = attach_providers, beside_warm_up  # type: ignore[assignment]
        httpx2.AsyncClient.send = sent.original  # type: ignore[method-assign]
    wall = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"ask failed ({code}): {err.getvalue()[-300:]}")
    from bench.turn_rows import waves

    spans = timed["times"].spans
    sizes = waves(spans, args["latency"])
    first, last = min(sent), max(span[2] for span in spans)
    return {
        "calls": last - first,
        "critical": len(sizes) * args["latency"],
        "sizes": sizes,
        "wall": wall,
        "first_request": first - started,
        "engine_calls": last - min(span[1] for span in spans),
    }


class SentTimes(list[float]):
    """When each model request left; `original`: the `send` to put back afterwards."""

    original: Any = None


def requests_sent() -> SentTimes:
    """When each model request left (perf_counter), seen where every SDK sends it: httpx2's
    `AsyncClient.send` (uploads and file polls left out). httpx2 is imported here, before the
    clock: a small part of what the warm-up would otherwise import, in both arms alike."""
    import httpx2

    sent = SentTimes()
    original = sent.original = httpx2.AsyncClient.send

    async def send(self: Any, request: Any, **kwargs: Any) -> Any:
        path = request.url.path
        model_call = request.method == "POST" and "/files" not in path and "upload" not in path
        if model_call:
            sent.append(time.perf_counter())
        return await original(self, request, **kwargs)

    httpx2.AsyncClient.send = send  # type: ignore[method-assign]
    return sent


TASKS = {
    "open": open_chat,
    "append": append_reply,
    "responsive": responsiveness,
    "first_turn": first_turn,
    "ask": ask_turn,
}


def run_here(task: str, args: dict[str, Any]) -> dict[str, Any]:
    """Run `task` in this process (the smoke run: bench/sizes.py `one_process`), its arguments and
    result through JSON as a child's; its log handlers are closed afterwards (each app adds one)."""
    import logging

    root = logging.getLogger()
    handlers = list(root.handlers)
    try:
        return json.loads(json.dumps(TASKS[task](json.loads(json.dumps(args)))))
    finally:
        for handler in [h for h in root.handlers if h not in handlers]:
            root.removeHandler(handler)
            handler.close()


def main() -> None:
    task, raw = sys.argv[1], sys.argv[2]
    result = TASKS[task](json.loads(raw))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
