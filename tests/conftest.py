"""Shared fixtures: a fresh home folder per test, and a workspace with scripted providers; the
tests' temporary folders in memory when there is room."""

from __future__ import annotations

import compileall
import gc
import os
import random
import shutil
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

import ensemble_tui
from ensemble_tui.core.turn.engine import Engine
from ensemble_tui.core.turn.retry import RetryPolicy
from ensemble_tui.core.workspace import Workspace
from tests.support import TEST_CA_FILE, ScriptedProvider, SleepRecorder, demo_without_pauses

REPO_SAMPLE = Path(__file__).resolve().parent / "data" / "sample.pdf"
MEMORY_FOLDER = Path("/dev/shm")
MEMORY_NEEDED = 2 * 2**30  # a whole run writes ~100 MB; pytest keeps the last three runs' folders


def pytest_configure(config: pytest.Config) -> None:
    """In the controller (or a run without workers): the package byte-compiled first (below), then
    the temporary folders (tmp_path: every home, chat and archive the tests write) in memory, on
    /dev/shm when it is there with room to spare. The app flushes each save to disk (settings,
    Session.json, transcripts, SQLite commits): on a shared disk that waiting was most of a fresh
    workspace's opening (170 ms, 22 ms in memory). No check is weaker: a flush matters only for
    power loss, which no test plays (a killed process leaves its writes in the page cache either
    way). The xdist controller picks the folder and its workers use it; `--basetemp` wins.
    In every process: SDK clients trust the tests' one-root CA bundle (tests.support.TEST_CA_FILE)."""
    os.environ["SSL_CERT_FILE"] = str(TEST_CA_FILE)
    if hasattr(config, "workerinput"):
        return
    byte_compile_the_package()
    if config.option.basetemp:
        return
    try:
        room = os.statvfs(MEMORY_FOLDER)
    except OSError:
        return
    if room.f_bavail * room.f_frsize >= MEMORY_NEEDED and os.access(MEMORY_FOLDER, os.W_OK):
        tempfile.tempdir = str(MEMORY_FOLDER)


def byte_compile_the_package() -> None:
    """The package's bytecode written once, before the workers start, as `pip install` writes an
    installed package's. An editable install leaves it to each import, and where
    PYTHONDONTWRITEBYTECODE is set (this machine's shells, many CI images) nothing ever writes it:
    every worker and every process a test starts (an `ask`, an app in tmux, a crash-test writer)
    compiled the package's ~400 modules again, ~0.4 s of CPU each."""
    compileall.compile_dir(Path(ensemble_tui.__file__).parent, quiet=1)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The cyclic collector tuned for a process that runs hundreds of apps, not one. Textual's
    bounded caches keep ~250,000 objects alive across tests, and every full collection walked
    them again (~0.2 s each, dozens per worker): a quarter of the UI tests' CPU. So what
    collection imported is frozen out of its reach (`gc.freeze()`), and the youngest generation
    is collected every 10,000 allocations instead of 700, so fewer short-lived objects (an app
    lives a second or two) reach the older generations. Everything the tests make is still
    collected; the app's own schedule (ui/gc_schedule.py) is tested in
    tests/ui/test_collector.py. Measured on tests/ui with four workers: 206 s of CPU before,
    152 s after. While a test runs the collector is now paused instead (below), so the threshold
    governs only what runs between tests and the collector tests, which turn it on."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    """The cyclic collector paused while a test runs, and one collection after it, whose
    survivors are frozen. The older generations' collections during a test walked every object
    the earlier tests left alive (a full one ~0.4 s, a middle one ~40 ms, a dozen a test), while
    what a test leaves behind is collected once, at its end (~80 ms): measured on four UI test
    files (83 tests, one process), the collector's CPU went from 14 s to 7.5 s and the run's from
    ~79 s to ~70 s, and the peak memory from 188 to 176 MB. Reference counting still frees
    everything outside a cycle at once, and a test that starts the app's own collector schedule
    (tests/ui/test_collector.py) still has it."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.collect()
        gc.freeze()
        gc.enable()


# The tests that take longest, most of it waiting on processes they start (crashes, signals,
# parallel runs, tmux), longest first. Each of the two workers starts on every other one, so the
# other tests fill in around them and no worker is left alone with one at the end.
RUN_FIRST = (
    "tests/hardening/test_clean_exits.py",
    "tests/hardening/test_crash_safety.py",
    "tests/hardening/test_budget_cap_processes.py",
    "tests/test_two_processes.py",
    "tests/ui/test_tmux_e2e.py",
    "tests/hardening/test_hostile_terminal.py",
    "tests/ui/test_shared_home.py",
    "tests/hardening/test_saved_means_saved.py",
    "tests/hardening/test_trust.py",
    "tests/hardening/test_inert_output.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order for two workers under xdist's `worksteal` (pyproject.toml), which gives the first half
    of the list to one worker and the second half to the other, then lets an idle worker take
    queued tests from the end of the busy one's: the RUN_FIRST files alternate between the heads
    of the two halves; the rest keep their collected order."""

    def rank(item: pytest.Item) -> int:
        return next((n for n, prefix in enumerate(RUN_FIRST) if item.nodeid.startswith(prefix)), len(RUN_FIRST))

    first = [item for item in items if rank(item) < len(RUN_FIRST)]
    if not first:
        return
    rest = [item for item in items if rank(item) == len(RUN_FIRST)]
    first.sort(key=rank)
    heads: tuple[list[pytest.Item], list[pytest.Item]] = ([], [])
    for item in first:
        heads[rank(item) % 2].append(item)
    middle = max(0, len(items) // 2 - len(heads[0]))
    items[:] = heads[0] + rest[:middle] + heads[1] + rest[middle:]


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the user's keys, home folder, trusted folders or base URLs."""
    for name in (
        "ENSEMBLE_TUI_HOME",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "GOOGLE_GEMINI_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("ENSEMBLE_TUI_CONFIG", str(tmp_path / "config"))  # trusted folders (core/store/trust.py)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def sample_pdf(tmp_path: Path) -> Path:
    target = tmp_path / "paper.pdf"
    shutil.copyfile(REPO_SAMPLE, target)
    return target


@pytest.fixture
def workspace(home: Path) -> Workspace:
    return Workspace.open(home)


@pytest.fixture
def scripted(workspace: Workspace) -> dict[str, ScriptedProvider]:
    providers = {label: ScriptedProvider(label) for label in ("ChatGPT", "Claude", "Gemini")}
    workspace.attach_providers(providers, {})  # type: ignore[arg-type]
    # Scripted providers script no claim map: the map is tested through the real adapters (tests/claims).
    workspace.update_settings(claim_map=False)  # written, so an app that reloads Settings.json keeps it
    return providers


@pytest.fixture
def quick_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--demo` run in this process (tests.support.run_command) answers without its pauses."""
    monkeypatch.setattr("ensemble_tui.simulator.demo.start_demo", demo_without_pauses)


@pytest.fixture
def instant_retries(monkeypatch: pytest.MonkeyPatch) -> SleepRecorder:
    """`ask` run in this process waits no time between retries (its status lines still say how
    long it would have); returns the delays it skipped."""
    recorder = SleepRecorder()
    monkeypatch.setattr("ensemble_tui.commands.ask_turn.Engine", partial(Engine, sleep=recorder))
    return recorder


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def make_engine(workspace: Workspace, sleeps: SleepRecorder) -> Callable[..., Engine]:
    def factory(**kwargs: object) -> Engine:
        options: dict[str, object] = {"retry": RetryPolicy(), "rng": random.Random(7), "sleep": sleeps}
        options.update(kwargs)
        return Engine(workspace, **options)  # type: ignore[arg-type]

    return factory
