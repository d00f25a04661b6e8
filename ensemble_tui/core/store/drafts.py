"""What the user typed and has not seen answered, kept per chat, so no question is ever lost.

A draft holds the question box's text and the question of a run under way. The run's question
is kept until its turn is saved: a quit during the run, or a crash, gives it back in the box at
the next start. Each chat has one small file in `Drafts/`, written atomically.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ensemble_tui.core.store.atomic import atomic_write_text


class Draft(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    text: str = ""  # in the box, not sent
    question: str = ""  # sent, its turn not saved yet

    @property
    def empty(self) -> bool:
        return not self.text.strip() and not self.question.strip()

    def for_the_box(self, answered: str | None = None) -> str:
        """The text to put back in the box: the question first (unless the chat shows it
        answered already: the turn was saved just before the process ended), then the rest."""
        question = "" if self.question.strip() == (answered or "").strip() else self.question.strip()
        return "\n\n".join(part for part in (question, self.text.strip()) if part)


class DraftStore:
    """The drafts of one home folder, one file per chat."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, chat_id: str) -> Path:
        return self.folder / f"{chat_id}.json"

    def load(self, chat_id: str) -> Draft:
        """The chat's draft; an empty one if there is none or its file cannot be read."""
        try:
            return Draft.model_validate_json(self.path(chat_id).read_bytes())
        except (OSError, ValidationError, ValueError):
            return Draft()

    def save(self, chat_id: str, draft: Draft) -> None:
        """Keep `draft` (an empty one removes the file); raises OSError if it cannot be written."""
        path = self.path(chat_id)
        if draft.empty:
            path.unlink(missing_ok=True)
        else:
            atomic_write_text(path, json.dumps(draft.model_dump(), ensure_ascii=False) + "\n")
