"""`ensemble-tui` without a subcommand: set up logging and providers, then run the app."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path

from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.collector import CollectorPolicy
from ensemble_tui.ui.notify import ReplyNotifier, SystemNotifier

LOG_FILE = "ensemble-tui.log"


def build_app(
    workspace: Workspace,
    *,
    pdf: str | Path | None = None,
    demo: bool = False,
    notifier: ReplyNotifier | None = None,
    after_start_up: Callable[[], None] | None = None,
) -> EnsembleApp:
    """The one app factory, shared by the command line and the snapshot tests.

    The app it builds owns its process, so it also schedules the garbage collector (no full
    collection in the middle of a turn; see ui/collector.py).
    """
    return EnsembleApp(
        workspace,
        pdf=pdf,
        demo=demo,
        notifier=notifier,
        collector=CollectorPolicy(),
        after_start_up=after_start_up,
    )


def configure_logging(logs: Path) -> None:
    """Send log records to Logs/ensemble-tui.log: nothing may write to the terminal the app owns."""
    try:
        logs.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(logs / LOG_FILE, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("ensemble_tui").setLevel(logging.INFO)


def launch(workspace: Workspace, *, pdf: str | None = None, demo: bool = False) -> int:
    from ensemble_tui.cli import attach_providers, demo_on_standby

    configure_logging(workspace.paths.logs)
    try:
        with demo_on_standby(demo) as standby:
            attach_providers(workspace, standby.env if standby else None)
            app = build_app(
                workspace,
                pdf=pdf,
                demo=demo,
                notifier=SystemNotifier(),
                after_start_up=standby.start if standby else None,
            )
            app.run()
    except ModuleNotFoundError as exc:
        # The providers and the simulator are built in parallel with this app; say so plainly
        # instead of failing with a traceback while they are missing from an install.
        if not (exc.name or "").startswith("ensemble_tui."):
            raise
        print(f"ensemble-tui: this install lacks {exc.name} - reinstall ensemble-tui.", file=sys.stderr)
        return 2
    return app.return_code or 0
