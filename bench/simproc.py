"""The loopback simulator for the benchmarks, in its own process.

Real providers are remote: their JSON parsing and sleeping cost the app nothing. An in-process
simulator would parse every request body (250 KB packets, 2 MB histories) in a thread that
holds the GIL the app's event loop needs, and the benchmark would blame the app for it. So the
timed rows talk to a simulator in a child process; `SimProcess` starts it and hands over the
environment (`sim.env`) that points the real SDK adapters at it.

The demo simulator answers every role of every style; tags in the question steer it per turn,
so one server serves every row:

- `[lat=1.0]`: seconds each model call takes (default: `--latency`);
- `[one-pass]`: the aggregator writes the final reply at once (no resynthesis round);
- `[big=51200]`: proposals and revisions are padded to that many characters;
- `[reply=NEW3]`: a proposal is `content.reply_text("NEW3")` (2 KB of Markdown with its marker);
- a question starting `Question 7:` gets a final reply ending "Question 7 answered." (a marker).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType

from bench.content import reply_text
from ensemble_tui.simulator.demo import DemoSimulator, final_reply, role_of
from ensemble_tui.simulator.script import RecordedRequest, ScriptedReply

_LATENCY = re.compile(r"\[lat=([0-9.]+)\]")
_BIG = re.compile(r"\[big=([0-9]+)\]")
_REPLY = re.compile(r"\[reply=([A-Za-z0-9]+)\]")
_QUESTION = re.compile(r"Question (\d+):")
PAD_LINE = "Padding paragraph: the proposer elaborates on the method, the data and the limits.\n\n"


class BenchSimulator(DemoSimulator):
    """The demo simulator with a fixed latency and per-question tags (see the module docstring)."""

    def __init__(self, latency_s: float = 1.0) -> None:
        super().__init__(seed=1, latency=(latency_s, latency_s))
        self.latency_s = latency_s

    def _responder(self, provider: str) -> Callable[[RecordedRequest], ScriptedReply]:
        demo = super()._responder(provider)

        def respond(request: RecordedRequest) -> ScriptedReply:
            asked = request.last_user_text
            reply = demo(request)
            role = role_of(asked)
            text = reply.text
            if role == "aggregator" and "[one-pass]" in asked:
                text = final_reply(provider, asked)
            numbered = _QUESTION.search(asked)
            if numbered and text.startswith("FINAL REPLY:"):
                text += f"\n\nQuestion {numbered.group(1)} answered."
            elif role in ("proposal", "revision"):
                named = _REPLY.search(asked)
                if named and role == "proposal":
                    text = reply_text(named.group(1))
                big = _BIG.search(asked)
                if big:
                    text = pad(text, int(big.group(1)))
            latency = _LATENCY.search(asked)
            seconds = float(latency.group(1)) if latency else self.latency_s
            return ScriptedReply(text, citations=reply.citations, latency_s=seconds)

        return respond


def pad(text: str, size: int) -> str:
    """`text` followed by Markdown paragraphs up to `size` characters."""
    repeats = max(0, (size - len(text)) // len(PAD_LINE))
    return text + "\n\n" + PAD_LINE * repeats


class SimProcess:
    """A BenchSimulator in a child process, for the life of a `with` block."""

    def __init__(self, latency_s: float = 1.0) -> None:
        self.latency_s = latency_s
        self.env: dict[str, str] = {}
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> SimProcess:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "bench.simproc", "--latency", str(self.latency_s)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            self.__exit__(None, None, None)
            raise RuntimeError("the simulator process did not start")
        self.env = json.loads(line)["env"]
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()  # the child stops when its stdin closes
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@contextmanager
def simulator_env(latency_s: float, shared: dict[str, str] | None = None) -> Iterator[dict[str, str]]:
    """The environment of the simulator a row family talks to: the run's `shared` one (the smoke
    run's, in its own process: bench/sizes.py) or a SimProcess of the family's own."""
    if shared is not None:
        yield shared
        return
    with SimProcess(latency_s) as sim:
        yield sim.env


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the benchmark simulator until stdin closes.")
    parser.add_argument("--latency", type=float, default=1.0)
    args = parser.parse_args()
    with BenchSimulator(args.latency) as sim:
        print(json.dumps({"env": sim.env}), flush=True)
        sys.stdin.read()  # blocks until the parent closes our stdin (or dies)


if __name__ == "__main__":
    main()
