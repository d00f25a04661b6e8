"""The claim kinds as people read them, in the app's Claims view and in the exports alike."""

from __future__ import annotations

from typing import Final

KIND_LABELS: Final = {"contradiction": "Disputed", "partial": "Partial", "unique": "Unique", "consensus": "Agreed"}
