"""The demo's provider accounts: the files `--demo` uploaded, kept between runs.

A real provider keeps an uploaded PDF after the app quits, and the next run reuses it; the demo
simulator starts afresh in every process, so without this every `ask --demo` and every start of
the app would find its uploads gone and upload again. The files' metadata (not their bytes, which
the simulator never keeps) is written to one JSON file in the demo's home folder, so that nothing
is written outside the home the user chose (`--demo --home DIR` keeps it in DIR).
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, fields
from pathlib import Path
from typing import TYPE_CHECKING

from ensemble_tui.core.store.atomic import atomic_write_json
from ensemble_tui.simulator.script import SimFile

if TYPE_CHECKING:
    from ensemble_tui.simulator.server import Simulator

# Requests after which the files a provider holds may have changed.
CHANGING = frozenset({"upload", "upload_chunk", "file_delete"})
_FIELDS = {f.name for f in fields(SimFile)}


ACCOUNT_FILE = "demo-provider-files.json"


def account_file(home: Path) -> Path:
    """The demo account of the home folder `home`."""
    return home / ACCOUNT_FILE


class DemoAccount:
    """Loads a simulator's files from `path` and writes them back after each change."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def load_into(self, sim: Simulator) -> None:
        """Give the simulator the files the account holds; an unreadable file is an empty account."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        for name, script in sim.scripts.items():
            for item in data.get(name, []) if isinstance(data, dict) else []:
                try:
                    file = SimFile(**{key: value for key, value in item.items() if key in _FIELDS})
                except (TypeError, AttributeError):
                    continue
                if not file.expired():
                    script.add_file(file)

    def save_from(self, sim: Simulator) -> None:
        """Write the files the simulator's three providers hold now; a failed write only means
        the next demo run uploads again."""
        with self._lock:
            data = {name: [asdict(file) for file in script.stored] for name, script in sim.scripts.items()}
            try:
                atomic_write_json(self.path, data)
            except OSError:
                pass
