"""The eval's answers and verdicts, kept in the home's History.sqlite3 so a killed eval resumes.

Each answer and each verdict is one row, written in its own transaction the moment it exists:
a kill loses at most the calls in flight, never a result already paid for. The tables are the
eval's own; no chat table is read or written here. The money an eval spent is counted by the
budget ledger (core/store/budget_ledger.py), under the eval's own key, so a rerun knows what the
killed run spent, calls in flight at the kill included at their worst case.
"""

from __future__ import annotations

import json
import sqlite3
import uuid

from ensemble_tui.core.store.archive import RunArchive
from ensemble_tui.core.store.budget_ledger import outstanding
from ensemble_tui.eval.arms import Proposals
from ensemble_tui.eval.model import ArmAnswer, GradeVerdict, Verdict

EVAL_SCHEMA = """
CREATE TABLE IF NOT EXISTS eval_answers (
    question TEXT NOT NULL,
    arm TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    PRIMARY KEY (question, arm)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS eval_verdicts (
    question TEXT NOT NULL,
    first TEXT NOT NULL,
    second TEXT NOT NULL,
    judge TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    PRIMARY KEY (question, first, second, judge)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS eval_grades (
    question TEXT NOT NULL,
    arm TEXT NOT NULL,
    judge TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    PRIMARY KEY (question, arm, judge)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS eval_proposals (
    question TEXT PRIMARY KEY,
    data TEXT NOT NULL
) WITHOUT ROWID;
"""


class EvalStore:
    """Reads and writes the eval tables of one home's archive."""

    def __init__(self, archive: RunArchive, ledger_key: str, run: str = "") -> None:
        self.archive = archive
        self.ledger_key = ledger_key  # the budget ledger's "session" for this eval's calls
        self.run = run  # this run's mark, the prefix of its reservations' `turn` (`turn_id`)
        with archive.writing() as db:
            for statement in EVAL_SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)

    def answers(self, question_ids: set[str] | None = None) -> dict[tuple[str, str], ArmAnswer]:
        """Stored answers by (question id, arm); failed ones too (a rerun asks those again)."""
        with self.archive.transaction() as db:
            rows = db.execute("SELECT question, arm, data FROM eval_answers").fetchall()
        return {
            (q, arm): ArmAnswer.model_validate_json(data)
            for q, arm, data in rows
            if question_ids is None or q in question_ids
        }

    def verdicts(self, question_ids: set[str] | None = None) -> list[Verdict]:
        with self.archive.transaction() as db:
            rows = db.execute(
                "SELECT question, data FROM eval_verdicts ORDER BY created_at, question, first, second, judge"
            ).fetchall()
        return [Verdict.model_validate_json(data) for q, data in rows if question_ids is None or q in question_ids]

    def save_answer(self, answer: ArmAnswer) -> None:
        with self.archive.writing() as db:
            db.execute(
                "INSERT OR REPLACE INTO eval_answers (question, arm, data) VALUES (?, ?, ?)",
                (answer.question_id, answer.arm, answer.model_dump_json()),
            )

    def save_verdicts(self, verdicts: list[Verdict]) -> None:
        """Verdicts, each kept the moment it is in: a kill loses no verdict already paid for."""
        with self.archive.writing() as db:
            db.executemany(
                "INSERT OR REPLACE INTO eval_verdicts (question, first, second, judge, data) VALUES (?, ?, ?, ?, ?)",
                [(v.question_id, v.first, v.second, v.judge, v.model_dump_json()) for v in verdicts],
            )

    def grades(self, question_ids: set[str] | None = None) -> list[GradeVerdict]:
        with self.archive.transaction() as db:
            rows = db.execute(
                "SELECT question, data FROM eval_grades ORDER BY created_at, question, arm, judge"
            ).fetchall()
        return [GradeVerdict.model_validate_json(data) for q, data in rows if question_ids is None or q in question_ids]

    def save_grade(self, grade: GradeVerdict) -> None:
        with self.archive.writing() as db:
            db.execute(
                "INSERT OR REPLACE INTO eval_grades (question, arm, judge, data) VALUES (?, ?, ?, ?)",
                (grade.question_id, grade.arm, grade.judge, grade.model_dump_json()),
            )

    def save_proposals(self, question_id: str, proposals: Proposals) -> None:
        """The first proposals the sharing arms read: a resumed eval's council reuses them too."""
        data = json.dumps(
            {"arm": proposals.arm, "texts": proposals.texts, "seconds": proposals.seconds, "cost": proposals.cost_usd}
        )
        with self.archive.writing() as db:
            db.execute("INSERT OR REPLACE INTO eval_proposals (question, data) VALUES (?, ?)", (question_id, data))

    def proposals(self, question_id: str) -> Proposals | None:
        with self.archive.transaction() as db:
            row = db.execute("SELECT data FROM eval_proposals WHERE question = ?", (question_id,)).fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        return Proposals(data["arm"], dict(data["texts"]), float(data["seconds"]), float(data.get("cost", 0.0)))

    def turn_id(self) -> str:
        """A reservation set's `turn` in the ledger: this run's mark, then its own id."""
        return f"{self.run}:{uuid.uuid4().hex}"

    def spent(self) -> float:
        """What this eval's calls cost so far, every run of it (the ledger's rows under its key)."""
        try:
            with self.archive.transaction() as db:
                return outstanding(db, self.ledger_key)
        except sqlite3.Error:
            return 0.0

    def spent_by_run(self) -> float:
        """What this run's calls cost (its reservations: billed, else their worst case)."""
        if not self.run:
            return 0.0
        try:
            with self.archive.transaction() as db:
                row = db.execute(
                    "SELECT COALESCE(SUM(COALESCE(billed_usd, worst_usd)), 0) FROM budget_reservations "
                    "WHERE session = ? AND substr(turn, 1, ?) = ?",
                    (self.ledger_key, len(self.run) + 1, f"{self.run}:"),
                ).fetchone()
            return float(row[0])
        except sqlite3.Error:
            return 0.0
