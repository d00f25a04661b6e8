"""Row 9: search across every chat (issue 32 §1), on a generated home of 200 chats and 10,000 turns.

The home is written through the archive (RunArchive.save_session and save_turn, one transaction
a chat), as the app stores chats: each turn a question, a ~2 KB reply (bench/content.py's
Markdown with seeded prose of a 4,000-word Zipf vocabulary, and some LaTeX) and a run record
with three ~700-byte proposals and a claim map of three claims. Rows:
- 9.a a query's p95 over 60 queries (words, rare and common, two words, phrases, prefixes,
  exclusions), 20 hits each with their snippets, through RunArchive.search; the baseline is a
  bare `LIKE '%word%'` scan of the stored messages for the same first word (info);
- 9.b building the index of that home from nothing (RunArchive.build_search_index);
- 9.c-e appending a turn (SessionStore.commit_turn: the messages, the row, the record, the
  index, and the transcript rewritten) to a chat of 50 and of 1,000 turns in that home, median
  of 15; the baseline is the same commit with the index off (a home not indexed yet);
- 9.f the history screen (ui/screens/history.py, as ui/actions/archive_flow.show_history opens
  it, with the archive's chats and the search) in a home of 1,000 chats, headless at 120x40: from
  Ctrl+G to the first refresh after the screen is mounted, median of 7; 9.g (info) from a typed
  letter to the refresh that shows the results.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import statistics
import time
from pathlib import Path

from bench.content import reply_text
from bench.sizes import FULL, Sizes
from bench.table import Row, error_row, millis, ratio, seconds, verdict
from ensemble_tui.core.chat.runlog import Artifact, TurnRecord
from ensemble_tui.core.chat.session import LISTS, ChatMessage, SessionData
from ensemble_tui.core.store.archive import ListChange, RunArchive, SessionRow
from ensemble_tui.core.store.home import seed_home
from ensemble_tui.core.store.session_store import SessionStore, TurnChange

QUERY_GOAL_S, BUILD_GOAL_S, APPEND_GOAL_S, OPEN_GOAL_S = 0.030, 10.0, 0.050, 0.200
FLAT_GOAL = 1.5


def _vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    syllables = ["ka", "lo", "mi", "ren", "tu", "sa", "vel", "dor", "qui", "an", "por", "et", "ix", "gra", "nu"]
    words = {"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(size * 2)}
    return sorted(words)[:size]


class Prose:
    """Seeded prose whose word frequencies follow Zipf's law, as real text does."""

    def __init__(self, seed: int = 9) -> None:
        self.rng = random.Random(seed)
        self.words = _vocabulary(self.rng)
        self.cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(self.words))))

    def text(self, chars: int) -> str:
        out: list[str] = []
        length = 0
        while length < chars:
            sentence = " ".join(self.rng.choices(self.words, cum_weights=self.cumulative, k=self.rng.randint(8, 16)))
            if self.rng.random() < 0.1:
                sentence += r" with $\mathrm{softmax}(x_i)$ and $\alpha_{t}$"
            out.append(sentence.capitalize() + ".")
            length += len(out[-1]) + 1
        return " ".join(out)


def _turn(prose: Prose, chat: str, number: int) -> tuple[ChatMessage, ChatMessage, TurnRecord]:
    question = ChatMessage(role="user", text=f"Question {number}: {prose.text(80)}?")
    reply = ChatMessage(role="assistant", text=reply_text(f"{chat[-4:]}{number}", 1000) + "\n\n" + prose.text(1000))
    record = TurnRecord(session=chat, mode="all", query=question.text, outcome="final")
    record.artifacts = [Artifact("answer", label, prose.text(700)) for label in ("ChatGPT", "Claude", "Gemini")]
    claims = [{"text": prose.text(60), "kind": "consensus"} for _ in range(3)]
    record.artifacts += [
        Artifact("final", "", reply.text),
        Artifact("claims", "Claude", "", data={"map": {"claims": claims}}),
    ]
    return question, reply, record


def write_chat(archive: RunArchive, prose: Prose, chat: str, turns: int) -> None:
    """A chat of `turns` turns stored in one transaction, as the archive stores a chat."""
    messages: list[ChatMessage] = []
    records: list[TurnRecord] = []
    for number in range(1, turns + 1):
        question, reply, record = _turn(prose, chat, number)
        messages += [question, reply]
        records.append(record)
    head = SessionData(id=chat).model_dump_json(exclude=set(LISTS))
    row = SessionRow(chat, messages[0].text if messages else "", turns, 0.01 * turns, head)
    with archive.writing() as db:
        archive.save_session(row, {"history": ListChange(0, [m.model_dump_json() for m in messages])}, db=db)
        for record in records:
            archive.save_turn(record, db=db)


def chat_id(number: int) -> str:
    return f"2026-01-{1 + number // 100:02d}_00-{number % 100 // 60:02d}-{number % 60:02d}"


def make_library(root: Path, sizes: Sizes = FULL) -> Path:
    home = root / "library-home"
    paths = seed_home(home)
    archive = RunArchive(paths.archive)
    prose = Prose()
    try:
        for number in range(sizes.library_chats):
            write_chat(archive, prose, chat_id(number), sizes.library_turns)
    finally:
        archive.close()
    return home


def queries(prose: Prose) -> list[str]:
    rng = random.Random(5)
    common, rare = prose.words[:50], prose.words[1000:3000]
    found: list[str] = []
    for _ in range(10):
        found += [
            rng.choice(common),
            rng.choice(rare),
            f"{rng.choice(common)} {rng.choice(rare)}",
            f'"{prose.text(40).split(".")[0].split()[0]} {rng.choice(common)}"',
            rng.choice(rare)[:4] + "*",
            f"{rng.choice(common)} -{rng.choice(common)}",
        ]
    return found


def _query_rows(archive: RunArchive, prose: Prose, sizes: Sizes) -> list[Row]:
    asked = queries(prose)
    archive.search(asked[0])  # the first query opens the connection
    times: list[float] = []
    cpu: list[float] = []
    for _ in range(sizes.query_rounds):
        for query in asked:
            started, started_cpu = time.perf_counter(), time.process_time()
            archive.search(query, 20)
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
    p95 = statistics.quantiles(times, n=20)[-1]
    cpu_p95 = statistics.quantiles(cpu, n=20)[-1]
    with archive.transaction() as db:
        scans: list[float] = []
        for query in asked[:12]:
            word = query.strip('"-*').split()[0]
            started = time.perf_counter()
            db.execute(
                "SELECT session, position FROM session_items WHERE list = 'history' AND data LIKE ? LIMIT 20",
                (f"%{word}%",),
            ).fetchall()
            scans.append(time.perf_counter() - started)
    scan = statistics.median(scans)
    return [
        Row(
            "9.a",
            f"search: a query's p95, {sizes.library_chats} chats, {sizes.library_chats * sizes.library_turns:,} turns",
            millis(p95),
            f"LIKE scan {millis(scan)}",
            ratio(p95, scan),
            f"<= {QUERY_GOAL_S * 1000:.0f} ms",
            verdict(p95 <= QUERY_GOAL_S),
            f"{len(times)} queries (words, phrases, prefixes, exclusions), 20 hits with snippets; median "
            f"{millis(statistics.median(times))}, max {millis(max(times))}; CPU time p95 {millis(cpu_p95)}",
        )
    ]


def _build_row(home: Path, sizes: Sizes) -> Row:
    archive = RunArchive(home / "History.sqlite3")
    try:
        with archive.transaction() as db:  # the home as a version before the index left it
            db.execute("DELETE FROM search_meta")
            db.execute("DELETE FROM search_entries")
            db.execute("DELETE FROM search_text")
        started, started_cpu = time.perf_counter(), time.process_time()
        indexed = archive.build_search_index()
        took, cpu = time.perf_counter() - started, time.process_time() - started_cpu
        with archive.transaction() as db:
            entries = db.execute("SELECT count(*) FROM search_entries").fetchone()[0]
    finally:
        archive.close()
    return Row(
        "9.b",
        f"search: index {sizes.library_chats} chats, {sizes.library_chats * sizes.library_turns:,} turns from nothing",
        seconds(took),
        "-",
        "-",
        f"<= {BUILD_GOAL_S:.0f} s",
        verdict(took <= BUILD_GOAL_S),
        f"{indexed} chats, {entries:,} entries (questions, replies, proposals, claims), one transaction; "
        f"CPU time {seconds(cpu)}",
    )


def _append_times(home: Path, indexed: bool, sizes: Sizes) -> dict[int, tuple[float, float]]:
    """Median commit_turn time at each size, wall and the thread's CPU (a busy machine moves the
    wall time, fsyncs included, more than the CPU time), the index on or off (a home not indexed
    yet)."""
    paths = seed_home(home)
    archive = RunArchive(paths.archive)
    store = SessionStore(paths, archive)
    prose = Prose(seed=31 if indexed else 32)
    result: dict[int, tuple[float, float]] = {}
    try:
        if not indexed:
            with archive.transaction() as db:
                db.execute("DELETE FROM search_meta")
        for size in (sizes.library_turns, sizes.long_chat):
            chat = f"2026-02-01_00-00-{size % 60:02d}-{'i' if indexed else 'n'}{size}"
            write_chat(archive, prose, chat, size)
            session = store.archived(chat)
            assert session is not None
            times: list[float] = []
            cpu: list[float] = []
            for number in range(sizes.appends):
                question, reply, record = _turn(prose, chat, size + number + 1)
                session.history += [question, reply]
                change = TurnChange(session, [question, reply], [], {}, 0.01, record)
                started, started_cpu = time.perf_counter(), time.thread_time()
                session = store.commit_turn(change).session
                times.append(time.perf_counter() - started)
                cpu.append(time.thread_time() - started_cpu)
            result[size] = statistics.median(times), statistics.median(cpu)
        if not indexed:
            archive.build_search_index()
    finally:
        archive.close()
    return result


def _append_rows(home: Path, sizes: Sizes) -> list[Row]:
    off_times = _append_times(home, indexed=False, sizes=sizes)
    on_times = _append_times(home, indexed=True, sizes=sizes)
    off = {size: wall for size, (wall, _cpu) in off_times.items()}
    on = {size: wall for size, (wall, _cpu) in on_times.items()}
    rows = [
        Row(
            f"9.{'c' if size == sizes.library_turns else 'd'}",
            f"append a turn (commit_turn, with the index) at {size} turns",
            millis(on[size]),
            f"no index {millis(off[size])}",
            ratio(on[size], off[size]),
            f"<= {APPEND_GOAL_S * 1000:.0f} ms",
            verdict(on[size] <= APPEND_GOAL_S),
            f"median of {sizes.appends}, in the home of {sizes.library_chats * sizes.library_turns:,} turns; "
            f"the transcript rewrite included; CPU time {millis(on_times[size][1])} (no index "
            f"{millis(off_times[size][1])})",
        )
        for size in (sizes.library_turns, sizes.long_chat)
    ]
    small, large = on[sizes.library_turns], on[sizes.long_chat]
    rows.append(
        Row(
            "9.e",
            f"flat: append at {sizes.long_chat} vs {sizes.library_turns} turns",
            millis(large),
            millis(small),
            ratio(large, small),
            f"<= {FLAT_GOAL}",
            verdict(large / small <= FLAT_GOAL),
        )
    )
    return rows


def _history_rows(root: Path, sizes: Sizes) -> list[Row]:
    home = root / "history-home"
    paths = seed_home(home)
    archive = RunArchive(paths.archive)
    prose = Prose(seed=11)
    for number in range(sizes.history_chats):
        write_chat(
            archive,
            prose,
            f"2025-{1 + number // 100 % 12:02d}-01_00-{number // 60 % 60:02d}-{number % 60:02d}-{number}",
            2,
        )
    opened, typed, few = asyncio.run(_time_history(archive, sizes.history_opens))
    archive.close()
    return [
        Row(
            "9.f",
            f"history screen with {sizes.history_chats:,} chats: Ctrl+G to its first refresh",
            millis(opened),
            f"3 chats {millis(few)}",
            ratio(opened, few),
            f"<= {OPEN_GOAL_S * 1000:.0f} ms",
            verdict(opened <= OPEN_GOAL_S),
            f"median of {sizes.history_opens}, headless 120x40, in-process app with the real HistoryScreen "
            "and archive; the baseline is the same screen given 3 of the chats",
        ),
        Row(
            "9.g",
            f"history with {sizes.history_chats:,} chats: a letter typed to its results shown",
            millis(typed),
            "-",
            "-",
            "-",
            "info",
            "the chats' filter and the search of every message, one refresh",
        ),
    ]


async def _time_history(archive: RunArchive, times: int) -> tuple[float, float, float]:
    from textual.app import App

    from ensemble_tui.ui.screens.history import HistoryScreen

    class Bench(App[None]):
        BINDINGS = [("ctrl+g", "history", "")]
        shown_at = 0.0
        chats: int | None = None

        def mark(self) -> None:
            self.shown_at = time.perf_counter()

        async def action_history(self) -> None:
            await self.push_screen(HistoryScreen(archive.sessions()[: self.chats], "", library=archive))
            self.call_after_refresh(self.mark)

    opens: list[float] = []
    types: list[float] = []
    few: list[float] = []
    app = Bench()
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(times):
            started = time.perf_counter()
            await pilot.press("ctrl+g")
            while not app.shown_at:
                await asyncio.sleep(0.001)
            opens.append(app.shown_at - started)
            app.shown_at = 0.0
            screen = app.screen
            started = time.perf_counter()
            await pilot.press("a")
            screen.call_after_refresh(app.mark)
            while not app.shown_at:
                await asyncio.sleep(0.001)
            types.append(app.shown_at - started)
            app.shown_at = 0.0
            await pilot.press("escape")
            await pilot.pause()
            app.chats = 3
            started = time.perf_counter()
            await pilot.press("ctrl+g")
            while not app.shown_at:
                await asyncio.sleep(0.001)
            few.append(app.shown_at - started)
            app.shown_at, app.chats = 0.0, None
            await pilot.press("escape")
            await pilot.pause()
    return statistics.median(opens), statistics.median(types), statistics.median(few)


def run(root: Path, sizes: Sizes = FULL) -> list[Row]:
    rows: list[Row] = []
    try:
        started = time.perf_counter()
        home = make_library(root, sizes)
        made = time.perf_counter() - started
    except Exception as exc:
        return [error_row("9.a", "search: generating the home", exc)]
    archive = RunArchive(home / "History.sqlite3")
    try:
        rows += _query_rows(archive, Prose(), sizes)
    except Exception as exc:
        rows.append(error_row("9.a", "search: a query's p95", exc))
    finally:
        archive.close()
    for make in (
        lambda: [_build_row(home, sizes)],
        lambda: _append_rows(home, sizes),
        lambda: _history_rows(root, sizes),
    ):
        try:
            rows += make()
        except Exception as exc:
            rows.append(error_row("9.?", "search", exc))
    if rows and rows[0].key == "9.a":
        rows[0] = Row(*rows[0].cells(), note=f"{rows[0].note}; the home took {made:.0f} s to generate")
    return rows
