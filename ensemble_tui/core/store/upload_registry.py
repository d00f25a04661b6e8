"""What the app has uploaded to each provider, kept in the archive (History.sqlite3).

One row per upload: the provider, the provider's file id and the reference calls carry, the
file's sha256, size and name, when it went up and when the provider drops it (Gemini after 48
hours, OpenAI when its `expires_after` runs out), and which chats used it and when last. An
upload is found again by content, so every chat that sends the same PDF to the same provider
shares one copy, across restarts, until its expiry; the clean-up deletes what no chat has used
for a while, and `ensemble-tui files` lists it all.

The tables are created with the archive's own (`archive.SCHEMA` runs `UPLOADS_SCHEMA`), and
every write is one transaction on the archive's shared connection.
"""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol

UPLOADS_SCHEMA = """
CREATE TABLE IF NOT EXISTS uploads (
    provider TEXT NOT NULL,
    file_id TEXT NOT NULL,
    ref TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    name TEXT NOT NULL,
    uploaded_at TEXT NOT NULL,
    expires_at TEXT,
    PRIMARY KEY (provider, file_id)
);
CREATE INDEX IF NOT EXISTS uploads_by_content ON uploads (provider, sha256);
CREATE TABLE IF NOT EXISTS upload_uses (
    provider TEXT NOT NULL,
    file_id TEXT NOT NULL,
    session TEXT NOT NULL,
    used_at TEXT NOT NULL,
    PRIMARY KEY (provider, file_id, session)
) WITHOUT ROWID;
"""
# An upload this close to its expiry is not reused: a call sent with it could outlive it.
EXPIRY_MARGIN = timedelta(minutes=10)
_CHUNK = 1024 * 1024


def file_sha256(path: Path) -> str:
    """The file's content hash, read in chunks (a PDF may be large)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def utc_now() -> datetime:
    return datetime.now(UTC)


def _text(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _moment(text: str | None) -> datetime | None:
    if not text:
        return None
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class ChatUse:
    session: str
    used_at: datetime


@dataclass(frozen=True)
class StoredUpload:
    """One upload as the registry holds it. `file_id` is what the provider's list and delete
    take (`files/abc` for Gemini); `ref` is what calls carry (Gemini's file URI)."""

    provider: str
    file_id: str
    ref: str
    sha256: str
    size: int
    name: str
    uploaded_at: datetime
    expires_at: datetime | None = None
    uses: tuple[ChatUse, ...] = ()

    @property
    def last_used_at(self) -> datetime:
        return max((use.used_at for use in self.uses), default=self.uploaded_at)

    def usable_at(self, now: datetime) -> bool:
        """Still worth sending: not expired, nor about to."""
        return self.expires_at is None or self.expires_at - EXPIRY_MARGIN > now

    def expired_at(self, now: datetime) -> bool:
        """The provider has dropped it by now: nothing left to delete."""
        return self.expires_at is not None and self.expires_at <= now


class Transactions(Protocol):
    """Where the uploads table lives: the run archive, which opens one transaction at a time on
    its shared connection (declared here so the archive, which creates this table, is not
    imported back)."""

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...


class UploadRegistry:
    """The uploads of one home folder's archive; safe to call from any thread (the archive
    serialises its connection)."""

    def __init__(self, archive: Transactions) -> None:
        self.archive = archive

    def find(self, provider: str, sha256: str, now: datetime | None = None) -> StoredUpload | None:
        """The newest upload of this content at this provider that is still usable."""
        moment = now or utc_now()
        for upload in self._select("WHERE provider = ? AND sha256 = ?", (provider, sha256)):
            if upload.usable_at(moment):
                return upload
        return None

    def copies(self, provider: str, sha256: str) -> list[StoredUpload]:
        """Every upload of this content at this provider, newest first."""
        return self._select("WHERE provider = ? AND sha256 = ?", (provider, sha256))

    def add(self, upload: StoredUpload, chat: str | None) -> None:
        """Record a new upload, and its first use by `chat` (if any)."""
        with self.archive.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO uploads (provider, file_id, ref, sha256, size, name, uploaded_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    upload.provider,
                    upload.file_id,
                    upload.ref,
                    upload.sha256,
                    upload.size,
                    upload.name,
                    _text(upload.uploaded_at),
                    _text(upload.expires_at) if upload.expires_at else None,
                ),
            )
            if chat:
                self._use(db, upload.provider, upload.file_id, chat, upload.uploaded_at)

    def used(self, provider: str, file_id: str, chat: str, now: datetime | None = None) -> None:
        """Note that `chat` sent this upload now."""
        with self.archive.transaction() as db:
            self._use(db, provider, file_id, chat, now or utc_now())

    def remove(self, provider: str, file_id: str) -> None:
        """Forget an upload (deleted, expired, or gone at the provider)."""
        with self.archive.transaction() as db:
            db.execute("DELETE FROM uploads WHERE provider = ? AND file_id = ?", (provider, file_id))
            db.execute("DELETE FROM upload_uses WHERE provider = ? AND file_id = ?", (provider, file_id))

    def remove_ref(self, provider: str, ref: str) -> None:
        """Forget the upload calls referred to as `ref` (the provider said it is gone)."""
        for upload in self._select("WHERE provider = ? AND ref = ?", (provider, ref)):
            self.remove(provider, upload.file_id)

    def get(self, provider: str, file_id: str) -> StoredUpload | None:
        found = self._select("WHERE provider = ? AND file_id = ?", (provider, file_id))
        return found[0] if found else None

    def all(self) -> list[StoredUpload]:
        """Every recorded upload, by provider, newest first."""
        return sorted(self._select("", ()), key=lambda upload: upload.provider)

    def unused_since(self, cutoff: datetime) -> list[StoredUpload]:
        """Uploads no chat has used since `cutoff` (never used: uploaded before it)."""
        return [upload for upload in self.all() if upload.last_used_at < cutoff]

    @staticmethod
    def _use(db: sqlite3.Connection, provider: str, file_id: str, chat: str, moment: datetime) -> None:
        db.execute(
            "INSERT INTO upload_uses (provider, file_id, session, used_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(provider, file_id, session) DO UPDATE SET used_at = excluded.used_at",
            (provider, file_id, chat, _text(moment)),
        )

    def _select(self, where: str, args: tuple[str, ...]) -> list[StoredUpload]:
        with self.archive.transaction() as db:
            rows = db.execute(
                "SELECT provider, file_id, ref, sha256, size, name, uploaded_at, expires_at FROM uploads "
                f"{where} ORDER BY uploaded_at DESC",
                args,
            ).fetchall()
            uses: dict[tuple[str, str], list[ChatUse]] = {}
            if rows:
                for provider, file_id, session, used_at in db.execute(
                    "SELECT provider, file_id, session, used_at FROM upload_uses ORDER BY used_at DESC"
                ):
                    uses.setdefault((provider, file_id), []).append(ChatUse(session, _moment(used_at) or utc_now()))
        return [
            StoredUpload(
                provider=row[0],
                file_id=row[1],
                ref=row[2],
                sha256=row[3],
                size=int(row[4]),
                name=row[5],
                uploaded_at=_moment(row[6]) or utc_now(),
                expires_at=_moment(row[7]),
                uses=tuple(uses.get((row[0], row[1]), ())),
            )
            for row in rows
        ]
