"""The session PDF: only its path is kept; it is checked when chosen and before each turn."""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ensemble_tui.core.errors import PdfError

_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
_PAGE_COUNT_LIMIT = 64 * 1024 * 1024
_MB = 1024 * 1024
# The largest PDF each API documents it takes, by protocol (core/config.py's names): OpenAI 50 MB
# per file input, Anthropic 32 MB per request, Gemini 50 MB through its Files API. A PDF sent as
# extracted text, or to another API, has no such limit here.
PDF_SIZE_LIMITS: dict[str, int] = {
    "openai-responses": 50 * _MB,
    "anthropic-messages": 32 * _MB,
    "gemini": 50 * _MB,
}


@dataclass(frozen=True)
class PdfInfo:
    path: Path
    size_bytes: int
    pages: int | None


def check_pdf(path: str | Path) -> Path:
    """Return the resolved path if it is a readable file starting with `%PDF-`, else raise. The
    app and `ask` both show these lines, so each names how either chooses a PDF."""
    resolved = Path(path).expanduser().resolve()
    name = resolved.name
    if not resolved.exists():
        raise PdfError(f"PDF {resolved} no longer exists - choose it again (in Attachments, or with --pdf)")
    if not resolved.is_file():
        raise PdfError(f"{resolved} is not a file - choose a PDF (in Attachments, or with --pdf)")
    try:
        with resolved.open("rb") as handle:
            head = handle.read(1024)
    except OSError as exc:
        raise PdfError(f"PDF {name} cannot be read ({exc.strerror}) - check its permissions") from None
    if not head.lstrip(b"\x00\t\n\r ").startswith(b"%PDF-"):
        raise PdfError(f"{name} is not a PDF (it does not start with %PDF-) - select a PDF file")
    return resolved


FileVersion = tuple[int, int, int]  # (inode, size, mtime in ns): a file replaced or rewritten gets another


def file_version(stat: os.stat_result) -> FileVersion:
    """The version of a file as the caches of what was read from it key it."""
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def pdf_info(path: str | Path) -> PdfInfo:
    """Size and, when cheap to count, the number of pages of a checked PDF."""
    resolved = check_pdf(path)
    stat = resolved.stat()
    pages: int | None = None
    if stat.st_size <= _PAGE_COUNT_LIMIT:
        try:
            pages = _page_count(str(resolved), file_version(stat))
        except OSError:
            pages = None  # not kept: the next turn tries again
    return PdfInfo(resolved, stat.st_size, pages)


# By path and file version: every turn asks (the budget's bound), and counting reads the whole
# file on the event loop (1.2 ms for a 1 MB paper). A few entries: a chat uses one PDF at a time.
@functools.lru_cache(maxsize=8)
def _page_count(path: str, _version: FileVersion) -> int | None:
    return len(_PAGE.findall(Path(path).read_bytes())) or None


def size_refusal(provider: str, protocol: str, size_bytes: int) -> str | None:
    """One line if a PDF of `size_bytes` is over what `provider`'s API takes, else None: refused
    for its size before anything is sent (its cost would otherwise be estimated as if it fit)."""
    limit = PDF_SIZE_LIMITS.get(protocol)
    if limit is None or size_bytes <= limit:
        return None
    return (
        f"{provider}: the PDF is {size_bytes / _MB:.0f} MB, over the {limit // _MB} MB its API accepts"
        " - send a smaller file (split it, or compress its images)"
    )
