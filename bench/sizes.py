"""How big each row family runs: the full bench's sizes, and the smoke run's smallest ones.

`python -m bench --smoke` (and tests/bench/test_bench_smoke.py) runs every family once at its
smallest size, only to show that every row still runs: its figures mean nothing (calls of
50 ms, chats of two turns, one start each). Rows 8.a and 8.b broke for a round because nothing
ran them; the suite runs the smoke now, so it must be cheap: the real SDKs' imports alone cost
2-6 s of CPU in every process that makes a model call, so the smoke makes them in one process
(`one_process`), against one simulator, and leaves out what exists only for the comparison
(`baselines`: the naive apps, runs without the warm-up, the empty chat; row 1's replay of its calls
stays: it is that row's own code).
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
    later_turns: int = 4  # 0: the first turn only (the smoke run)
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
    # Row 9 (search): the generated home (chats x turns, replies of about 2 KB), the longer chat
    # a turn is appended to (9.d), the history screen's chats (9.f), and how often each is timed.
    library_chats: int = 200
    library_turns: int = 50
    long_chat: int = 1000
    appends: int = 15
    query_rounds: int = 3
    history_chats: int = 1000
    history_opens: int = 7
    # What only the timing needs: the baselines the rows compare with, and a fresh process (and a
    # simulator of its own) for each measurement. The smoke runs each row's own code path once.
    baselines: bool = True
    one_process: bool = False
    turn_cases: tuple[str, ...] = ()  # row 1: the cases run (all when empty)


FULL = Sizes()
SMOKE = Sizes(
    latency_s=0.05,
    open_turns=2,
    math_runs=1,
    append_turns=(2,),
    replies_per_repeat=1,
    idle_s=0.3,
    big_reply=2048,
    later_turns=0,
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
    baselines=False,
    one_process=True,
    turn_cases=("1.a", "1.d-with-map"),  # a single model; All with its claim map
    library_chats=3,
    library_turns=2,
    long_chat=4,
    appends=2,
    query_rounds=1,
    history_chats=3,
    history_opens=1,
)
