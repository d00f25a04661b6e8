"""The `layers` contract (pyproject.toml) fails on an import that runs back up the layers, or
across two of its independent siblings: import-linter run on a copy of the package into which
such imports were written."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = "the layers, top to bottom"

# module file -> the module it is made to import, each against one rule the layers keep
PLANTED = {
    "ui/notify.py": "ensemble_tui.bootstrap",  # the UI reaching back into the wiring (ui/launch.py did)
    "core/money.py": "ensemble_tui.ui.app",  # core knows nothing of the UI
    "providers/registry.py": "ensemble_tui.ui.app",  # the providers import no UI (siblings)
    "ui/desktop.py": "ensemble_tui.simulator.demo",  # the UI reaches the simulator only through the wiring
    "bootstrap.py": "ensemble_tui.commands.context",  # the wiring knows nothing of the commands
    "commands/trust.py": "ensemble_tui.cli",  # nothing imports the command line
}


def lint_copy(tmp_path: Path, planted: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """lint-imports with pyproject's contracts on a copy of ensemble_tui/ with `planted` imports."""
    shutil.copytree(ROOT / "ensemble_tui", tmp_path / "ensemble_tui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for path, imported in planted.items():
        with (tmp_path / "ensemble_tui" / path).open("a", encoding="utf-8") as module:
            module.write(f"\nimport {imported}  # planted by tests/architecture/test_layers.py\n")
    linter = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}  # the copy, ahead of the installed package
    return subprocess.run(
        [str(linter), "--no-cache"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180
    )


def test_the_layers_contract_fails_on_every_import_that_runs_back_up(tmp_path):
    result = lint_copy(tmp_path, PLANTED)
    report = " ".join(result.stdout.split())  # import-linter wraps long lines
    assert result.returncode == 1, report[-3000:]
    assert f"{LAYERS}" in report and "BROKEN" in report.split("Contracts:")[0]
    for path, imported in PLANTED.items():
        importer = "ensemble_tui." + path.removesuffix(".py").replace("/", ".")
        assert f"{importer} -> {imported}" in report, f"{importer} -> {imported} not reported"


def test_the_copy_alone_keeps_the_contracts(tmp_path):
    """The failure above is the planted imports', not the copy's."""
    result = lint_copy(tmp_path, {})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
