"""The log file: where warnings and errors go, never raw to a terminal.

The app owns its terminal, and `ask`'s stderr is read by people and scripts; both log to
`Logs/ensemble-tui.log` in the home (nowhere, if it cannot be written). Records are written
with their control characters stripped: an SDK's error text, or a PDF's, may carry escapes.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ensemble_tui.core.text.sanitize import strip_control

LOG_FILE = "ensemble-tui.log"


class InertFormatter(logging.Formatter):
    """A formatter whose lines hold no control characters but newlines and tabs."""

    def format(self, record: logging.LogRecord) -> str:
        return strip_control(super().format(record))


def configure_logging(logs: Path) -> None:
    """Send log records to Logs/ensemble-tui.log (pypdf reports a damaged PDF as a warning,
    which Python would otherwise print to stderr)."""
    try:
        logs.mkdir(mode=0o700, parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(logs / LOG_FILE, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(InertFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("ensemble_tui").setLevel(logging.INFO)
