"""The wiring layer: the one place that builds a workspace, its providers, the demo's simulators
and the app.

The commands (ensemble_tui/commands/, through their shared context) call these; so do the tests
and the benchmarks, which build the app with the same factory as the command. It sits between
the commands and the parts it wires (ui, providers, simulator), which never import it back
(pyproject's `layers` contract). Heavy imports (Textual, the SDKs, the simulator) happen inside
the functions, so `--version` and `--help` answer at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from ensemble_tui.core.turn.engine import Engine
    from ensemble_tui.core.workspace import Workspace
    from ensemble_tui.simulator.standby import StandbyDemo
    from ensemble_tui.ui.app import EnsembleApp
    from ensemble_tui.ui.gc_schedule import CollectorPolicy
    from ensemble_tui.ui.notify import ReplyNotifier

T = TypeVar("T")


def demo_home() -> Path:
    """Demo chats live apart from real ones, so simulated replies never mix into them."""
    import platformdirs

    return Path(platformdirs.user_data_dir("ensemble-tui", appauthor=False)) / "demo"


def open_workspace(home: str | Path | None, demo: bool = False, *, for_reading: bool = False) -> Workspace:
    """The home folder (`--home`, else as `resolve_home` finds it; the demo's own for `--demo`),
    made private to the user, seeded and read (`for_reading`: only read, nothing created or
    changed); raises EnsembleError if it is unusable.

    An untrusted folder that looks like a home, and an existing home that others could read,
    each get one line on stderr, and are kept as the workspace's `home_notices`: the app shows
    them in the chat too, as its screen hides what was printed before it."""
    import sys

    from ensemble_tui.core.errors import EnsembleError
    from ensemble_tui.core.store.home import make_private, resolve_home
    from ensemble_tui.core.workspace import Workspace

    notices: list[str] = []

    def say(line: str) -> None:
        notices.append(line)
        print(f"ensemble-tui: {line}", file=sys.stderr)

    root = resolve_home(str(home) if home else None, notice=say) if home or not demo else demo_home()
    if for_reading:
        if home and not Path(root).is_dir():  # a mistyped --home, not a home without chats yet
            raise EnsembleError(f"there is no home folder at {home}: check the path given to --home")
        workspace = Workspace.for_reading(root)
    else:
        # An empty folder is a new home (made by the user, or by resolve_home, for it): making it
        # private is part of creating it, not news; a warning-like line there misled (issue 35).
        # So is the user data folder that holds only the demo's home: made as its parent, by the
        # first `--demo`, with the default mode.
        demo_folder = demo_home()
        new = not Path(root).is_dir() or all(entry == demo_folder for entry in Path(root).iterdir())
        tightened = make_private(root)
        if tightened and not new:
            say(f"made the home folder {root} private to you (0700 folders, 0600 files): {', '.join(tightened)}")
        workspace = Workspace.open(root)
    workspace.demo = demo
    workspace.home_notices = notices
    return workspace


def demo_paper() -> Path:
    """The demo's paper, shipped in the package: the figure its planted contradiction is about."""
    return Path(__file__).resolve().parent / "simulator" / "sample.pdf"


def use_demo_paper(workspace: Workspace, chosen: str | Path | None = None) -> None:
    """In the demo, a chat without a PDF gets the demo's paper (and so does every new chat), so
    the planted contradiction shows ✓ on one side and ✗ on the other; a chat whose PDF the user
    removed stays without one. A PDF `chosen` on the command line wins: the demo's is not used.
    A paper that cannot be read is left out; one that cannot be saved (a read-only home) is used."""
    from ensemble_tui.core.errors import EnsembleError

    if chosen:
        return
    workspace.starting_pdf = demo_paper()
    session = workspace.session
    if session.pdf_path or session.pdf_removed:
        return
    try:
        workspace.select_pdf(workspace.starting_pdf)
    except (EnsembleError, OSError):
        pass


def attach_providers(
    workspace: Workspace, env: dict[str, str] | None, pdf: str | Path | None = None, *, prepare: bool = True
) -> None:
    """Build every configured provider (keys from `env`, else the environment and `.env`); the
    demo's chats get its paper first (`use_demo_paper`) unless the command was given a `pdf`.
    Without `prepare`, the PDF's uploads wait for `workspace.prepare_uploads()` (the app's first
    frame: they import the SDKs and pypdf in threads, which slowed it)."""
    from ensemble_tui.providers.registry import build_providers

    if workspace.demo:
        use_demo_paper(workspace, pdf)

    providers, unavailable = build_providers(workspace, env=env)
    workspace.attach_providers(providers, unavailable, prepare=prepare)


def simulator_context(demo: bool, home: Path | None = None) -> AbstractContextManager[dict[str, str] | None]:
    """The demo simulator, running for the life of the command; yields its environment. Its
    provider account (the files uploaded) is kept in `home`, the only folder the app writes to."""
    if not demo:
        return nullcontext(None)
    from ensemble_tui.simulator.demo import demo_environment

    return demo_environment(home=home)


def demo_on_standby(demo: bool, home: Path | None = None) -> AbstractContextManager[StandbyDemo | None]:
    """The app's demo simulator: its address for the providers now, its server started by the
    app after its first frame (simulator/standby.py); its account kept in `home`."""
    if not demo:
        return nullcontext(None)
    from ensemble_tui.simulator.standby import standby_demo

    return standby_demo(home=home)


@contextmanager
def eval_simulator(demo: bool, home: Path) -> Iterator[dict[str, str] | None]:
    """The eval demo's simulator (answers of known quality) for the life of the command; yields
    its environment. Its provider account is kept in `home`, as the demo's is."""
    if not demo:
        yield None
        return
    from ensemble_tui.simulator.demo_account import account_file
    from ensemble_tui.simulator.eval_demo import EvalDemoSimulator

    simulator = EvalDemoSimulator(account=account_file(home))
    simulator.start()
    try:
        yield simulator.env
    finally:
        simulator.stop()


def collector_hold(owns_process: bool) -> AbstractContextManager[None]:
    """The app starts without automatic garbage collection, the process being its own (see
    ui/gc_schedule.py: 30-45 ms of the time to the first frame); the other commands leave
    the collector alone."""
    if not owns_process:
        return nullcontext()
    from ensemble_tui.ui.gc_schedule import start_up_hold

    return start_up_hold()


def build_app(
    workspace: Workspace,
    *,
    pdf: str | Path | None = None,
    demo: bool = False,
    notifier: ReplyNotifier | None = None,
    after_start_up: Callable[[], None] | None = None,
    engine: Engine | None = None,
    collector: CollectorPolicy | None = None,
    folder_opener: Callable[[Path], bool] | None = None,
) -> EnsembleApp:
    """The one app factory, shared by the command line, the UI tests and the benchmarks.

    The command's app owns its process, so it also schedules the garbage collector (no full
    collection in the middle of a turn; see ui/gc_schedule.py); tests pass a collector that is off.
    """
    from ensemble_tui.ui.app import EnsembleApp
    from ensemble_tui.ui.gc_schedule import CollectorPolicy

    options = {"folder_opener": folder_opener} if folder_opener is not None else {}
    workspace.demo = workspace.demo or demo  # its money is simulated (core/money.py)
    return EnsembleApp(
        workspace,
        engine=engine,
        pdf=pdf,
        demo=demo,
        notifier=notifier,
        collector=collector or CollectorPolicy(),
        after_start_up=after_start_up,
        **options,  # type: ignore[arg-type]
    )


async def beside_warm_up(providers: Mapping[str, object], turn: Awaitable[T]) -> T:
    """Await `turn` (the `ask` command's) with the warm-up of `providers` (those the turn calls;
    core/turn/warm_up.py) started just before it: the SDK imports, queued on the provider loop
    first, overlap the turn's own start and the uploads, and the proposers' requests go out
    together instead of one import after another. Never raises for the warm-up."""
    import asyncio

    from ensemble_tui.core.turn.warm_up import warm_up_all

    warming = asyncio.ensure_future(warm_up_all(providers))
    try:
        return await turn
    finally:
        warming.cancel()  # done by then, unless the turn failed early
        await asyncio.gather(warming, return_exceptions=True)


def shut_down(workspace: Workspace) -> None:
    """End the command in order, so nothing runs while the interpreter tears down: the provider
    loop (its uploads finish or are cancelled, the SDK clients close, its threads are joined),
    then the archive's connection. Called once every command's own loop has ended."""
    from ensemble_tui.providers.io_loop import stop_io_loop

    closers = [
        close for provider in workspace.providers.values() if callable(close := getattr(provider, "aclose", None))
    ]
    stop_io_loop(closers)
    workspace.close()
