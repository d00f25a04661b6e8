"""How big each row family runs: the full bench's sizes, and the smoke run's smallest ones.

`python -m bench --smoke` (and tests/bench/test_bench_smoke.py) runs every family once at its
smallest size, only to show that every row still runs: its figures mean nothing (calls of
50 ms, chats of two turns, one start each). Rows 8.a and 8.b broke for a round because nothing
ran them; the suite runs the smoke now.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sizes:
    latency_s: float = 1.0  # rows 1 and 8: what every model call takes in the simulator
    open_turns: int = 200  # rows 2 and 4: the chat opened
    math_runs: int = 3  # row 2.c: runs of each side, at least
    append_turns: tuple[int, ...] = (50, 200, 1000)  # row 3: 3.a, 3.b, 3.c
    replies_per_repeat: int = 4  # row 3: replies timed per --repeats
    idle_s: float = 3.0  # row 4: the idle baseline's probes
    big_reply: int = 50 * 1024  # row 4: each proposal's size
    # Rows 4.c/4.d: keys and lags pooled over this many All turns after the first (issue 36): one
    # turn gave ~40 keys, whose p99 is their largest, so one slow frame decided the row.
    later_turns: int = 4
    # Row 5: starts of each app. One start moves by 20-40% with the machine's load: the medians of
    # five or eleven starts put the same code at 1.18-1.65 in consecutive runs, the fastest at 1.34-1.43.
    starts: int = 11
    seed_starts: bool = True  # row 5: one untimed start of each app first
    version_runs: int = 5  # row 5.b: runs of `--version` and of `python -c pass`
    upload_turns: int = 10  # row 6
    pages: int = 300  # row 7: the paper
    quote_runs: int = 21  # row 7: timed runs of each measurement
    delay_s: float = 3.0  # row 8.a: the question is pasted this long after the first frame
    prime: bool = True  # row 8: an untimed `ask` first, so the uploads are kept (a restart)
    # Rows 3, 4 and 8: how long a reply or a turn may take before it counts as missed. The smoke
    # run waits longer: it judges no timing, and the suite may share the machine with others.
    reply_timeout_s: float = 8.0
    turn_timeout_s: float = 30.0


FULL = Sizes()
SMOKE = Sizes(
    latency_s=0.05,
    open_turns=2,
    math_runs=1,
    append_turns=(2,),
    replies_per_repeat=1,
    idle_s=0.3,
    big_reply=2048,
    later_turns=1,
    starts=1,
    seed_starts=False,
    version_runs=1,
    upload_turns=1,
    pages=4,
    quote_runs=1,
    delay_s=0.0,
    prime=False,
    reply_timeout_s=90.0,
    turn_timeout_s=90.0,
)
