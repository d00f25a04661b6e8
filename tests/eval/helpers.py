"""What the eval tests share: a questions file, the eval command run on a home, its stored records."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.eval.model import ArmAnswer
from ensemble_tui.eval.store import EvalStore
from tests.support import run_command


def questions_file(folder: Path, count: int) -> Path:
    path = folder / "questions.txt"
    path.write_text("".join(f"Eval question number {n}?\n" for n in range(1, count + 1)), encoding="utf-8")
    return path


def run_eval(
    home: Path, *args: str, process: bool = False, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_command(home, "eval", "--demo", *args, process=process, env=env, timeout=180)


def stored(home: Path) -> tuple[dict[tuple[str, str], ArmAnswer], float]:
    """The answers an eval kept in the home's History.sqlite3, and what its calls cost (every eval)."""
    archive = RunArchive(home / "History.sqlite3")
    try:
        store = EvalStore(archive, "unused")
        with archive.transaction() as db:
            spent = db.execute(
                "SELECT COALESCE(SUM(COALESCE(billed_usd, worst_usd)), 0) FROM budget_reservations"
            ).fetchone()[0]
        return store.answers(), float(spent)
    finally:
        archive.close()
