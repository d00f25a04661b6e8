"""The log file: where warnings and errors go, never raw to a terminal.

The app owns its terminal, and `ask`'s stderr is read by people and scripts; both log to
`Logs/ensemble-tui.log` in the home (nowhere, if it cannot be written). Records are written
with their control characters stripped: an SDK's error text, or a PDF's, may carry escapes.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ensemble_tui.core.text.sanitize import strip_control

LOG_FILE = "ensemble-tui.log"


class InertFormatter(logging.Formatter):
    """A formatter whose lines hold no control characters but newlines and tabs."""

    def format(self, record: logging.LogRecord) -> str:
        return strip_control(super().format(record))


class QuietFileHandler(logging.FileHandler):
    """A log file that fails quietly: on a full disk or a removed folder a record is dropped,
    instead of the standard library's "--- Logging error ---" and a traceback on stderr for
    every record (the app's terminal, or `ask`'s output). What failed is told by its own line."""

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - the standard library's name
        return


def _created_private(path: Path) -> Path:
    """`path`, created for the user alone (0600) if it is new, so no log line is ever readable by
    others, not even until the next start tightens it."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    return path


def configure_logging(logs: Path) -> None:
    """Send log records to Logs/ensemble-tui.log (pypdf reports a damaged PDF as a warning,
    which Python would otherwise print to stderr)."""
    try:
        logs.mkdir(mode=0o700, parents=True, exist_ok=True)
        handler: logging.Handler = QuietFileHandler(_created_private(logs / LOG_FILE), encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(InertFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("ensemble_tui").setLevel(logging.INFO)
