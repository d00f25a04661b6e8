"""A PDF's text layer, page by page, read once per file content and kept in the home's cache.

Quote checks need the paper's text with its page numbers. Extracting it with pypdf takes seconds
for a long paper and its result never changes for the same bytes, so each extraction is written
to `<cache>/pdf-text-<sha256>.json` and never repeated; a copy of the file, or the same file
chosen again in a later session, costs one hash. Everything happens locally: nothing is sent.

A scan (no text layer) is not an error: it gives pages without text and `NO_TEXT_LAYER`. A file
pypdf cannot read, or that is encrypted, raises `PdfTextUnavailable` with one line for the user.
Both of those come from the content, so they are cached too; an OSError (the file vanished, no
permission) is not.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from ensemble_tui.core.errors import PdfError
from ensemble_tui.core.paper.pdf import FileVersion, file_version
from ensemble_tui.core.store.atomic import atomic_write_json

log = logging.getLogger(__name__)

NO_TEXT_LAYER = "This PDF has no text layer; quotes cannot be checked."
SCHEMA_VERSION = 1


class PdfTextUnavailable(PdfError):
    """The PDF cannot be read or is encrypted: `str(error)` is one line for the user."""


@dataclass(frozen=True)
class PageTexts:
    """The text pypdf extracted from each page (index 0 is page 1), and the printed page labels."""

    sha256: str
    pages: tuple[str, ...]
    labels: tuple[str, ...] = ()  # the PDF's own page labels ("iii", "345"), when it has them

    @property
    def has_text_layer(self) -> bool:
        return any(page.strip() for page in self.pages)

    @property
    def notice(self) -> str | None:
        """The one line to show instead of quote checks, or None when the text can be checked."""
        return None if self.has_text_layer else NO_TEXT_LAYER


class CachedPageTexts(BaseModel):
    """One cache file. `extractor` names the pypdf version: another version may read differently."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1]
    sha256: str
    extractor: str
    pages: list[str]
    labels: list[str] = []
    unreadable: str | None = None  # the user's line when the content itself cannot be read


def file_sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@functools.cache  # the installed pypdf does not change under a running process
def extractor_version() -> str:
    from importlib.metadata import version

    return f"pypdf {version('pypdf')}"


def cache_file(cache_dir: Path, sha256: str) -> Path:
    return cache_dir / f"pdf-text-{sha256}.json"


_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()
# What was read, by path, file version (pdf.file_version) and cache folder, with the version of
# the cache file it came from: a turn's quote checks read the text when it starts and again
# after its last answer, each time hashing the PDF and parsing its cache file (2.6 ms for a
# 1 MB paper, on the turn's path to its reply).
# A cache file changed since (broken, removed) is read again. A chat uses one PDF at a time.
_read: dict[tuple[str, FileVersion, str], tuple[FileVersion | None, PageTexts]] = {}
_KEEP_READ = 8


def _version(path: Path) -> FileVersion | None:
    """The file's version, None if it cannot be seen."""
    try:
        return file_version(path.stat())
    except OSError:
        return None


def read_page_texts(pdf: Path, cache_dir: Path) -> PageTexts:
    """The text of every page of `pdf`, from the cache when this content was read before.

    Blocking (hashing, and pypdf on a cache miss): run it in a worker thread. Raises
    PdfTextUnavailable for an unreadable or encrypted PDF, or one that cannot be opened.
    """
    try:
        version = (str(pdf.resolve()), file_version(pdf.stat()), str(cache_dir))
        with _locks_guard:
            known = _read.get(version)
        if known is not None and _version(cache_file(cache_dir, known[1].sha256)) == known[0]:
            return known[1]
        digest = file_sha256(pdf)
    except OSError as exc:
        raise PdfTextUnavailable(f"{pdf.name} cannot be read ({exc.strerror}); quotes cannot be checked.") from None
    with _locks_guard:
        lock = _locks.setdefault(digest, threading.Lock())
    with lock:  # two checks of the same paper at once extract it once
        cached = _load_cached(cache_file(cache_dir, digest), digest)
        if cached is None:
            cached = _extract(pdf, digest)
            try:
                atomic_write_json(cache_file(cache_dir, digest), cached.model_dump(mode="json"))
            except OSError as exc:  # a read-only home still gets its checks, just not cached
                log.info("cannot write the PDF text cache: %s", exc.strerror)
    if cached.unreadable is not None:
        raise PdfTextUnavailable(cached.unreadable)
    texts = PageTexts(digest, tuple(cached.pages), tuple(cached.labels))
    with _locks_guard:
        if len(_read) >= _KEEP_READ:
            del _read[next(iter(_read))]
        _read[version] = (_version(cache_file(cache_dir, digest)), texts)
    return texts


def _load_cached(path: Path, digest: str) -> CachedPageTexts | None:
    """The cached extraction, or None when there is none usable (missing, broken, older pypdf)."""
    try:
        cached = CachedPageTexts.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError):
        log.info("ignoring an unreadable PDF text cache file %s", path.name)
        return None
    if cached.sha256 != digest or cached.extractor != extractor_version():
        return None
    return cached


def _extract(pdf: Path, digest: str) -> CachedPageTexts:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError

    def outcome(pages: list[str], labels: tuple[str, ...] = (), unreadable: str | None = None) -> CachedPageTexts:
        return CachedPageTexts(
            schema_version=SCHEMA_VERSION,
            sha256=digest,
            extractor=extractor_version(),
            pages=pages,
            labels=list(labels),
            unreadable=unreadable,
        )

    encrypted = f"{pdf.name} is encrypted; save an unlocked copy to have its quotes checked."
    try:
        reader = PdfReader(pdf)  # it tries the empty password itself, as viewers do
        pages = [page.extract_text() or "" for page in reader.pages]
        labels = tuple(reader.page_labels) if len(reader.page_labels) == len(pages) else ()
    except OSError as exc:
        raise PdfTextUnavailable(f"{pdf.name} cannot be read ({exc.strerror}); quotes cannot be checked.") from None
    except (FileNotDecryptedError, DependencyError):
        return outcome([], unreadable=encrypted)
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
        # pypdf raises its own errors for broken files, and plain ones from deep inside a bad one
        log.info("cannot extract text from %s: %s", pdf.name, type(exc).__name__)
        return outcome([], unreadable=f"{pdf.name} could not be read as a PDF; quotes cannot be checked.")
    return outcome(pages, labels)
