"""`ensemble-tui` without a subcommand: set up logging and providers, then run the app."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from ensemble_tui.bootstrap import attach_providers, build_app, demo_on_standby
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.ui.notify import SystemNotifier

LOG_FILE = "ensemble-tui.log"


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
    configure_logging(workspace.paths.logs)
    try:
        with demo_on_standby(demo, workspace.paths.root) as standby:
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
