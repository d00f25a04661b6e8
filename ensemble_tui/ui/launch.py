"""`ensemble-tui` without a subcommand: set up logging and providers, then run the app."""

from __future__ import annotations

import sys

from ensemble_tui.bootstrap import attach_providers, build_app, demo_on_standby
from ensemble_tui.core.workspace import Workspace
from ensemble_tui.logs import LOG_FILE, configure_logging
from ensemble_tui.ui.hangup import end_on_hangup
from ensemble_tui.ui.notify import SystemNotifier

__all__ = ["LOG_FILE", "configure_logging", "launch"]  # the log's setup lives in ensemble_tui/logs.py


def launch(workspace: Workspace, *, pdf: str | None = None, demo: bool = False) -> int:
    configure_logging(workspace.paths.logs)
    end_on_hangup()  # a closed terminal ends the app, even one stuck shutting down (ui/hangup.py)
    try:
        with demo_on_standby(demo, workspace.paths.root) as standby:
            attach_providers(workspace, standby.env if standby else None, pdf, prepare=False)
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
