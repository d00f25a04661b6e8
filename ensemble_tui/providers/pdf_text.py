"""The PDF for endpoints that take no files: its text, extracted locally, or the file inline.

Most OpenAI-compatible servers (DeepSeek, Mistral, xAI, Ollama, llama.cpp, vLLM) accept no
documents at all, so the adapter sends the PDF's text instead, extracted here with pypdf. The
extraction is slow for a long paper and its result never changes for the same bytes, so it runs
in a worker thread and is kept per file content (sha256) for the whole process: several such
providers and every later turn share one extraction. OpenRouter takes the file itself, base64 in
a data URL, which `pdf_data_url` builds.
"""

from __future__ import annotations

import base64
import logging
import threading
from collections import OrderedDict
from pathlib import Path

from ensemble_tui.core.text.counts import plural
from ensemble_tui.providers.uploads import file_sha256

log = logging.getLogger(__name__)

PDF_MIME = "application/pdf"
KEEP_TEXTS = 8  # extracted texts kept in memory (a session rarely switches papers more often)


class PdfTextError(Exception):
    """The PDF could not be read, or holds no text (a scan): one line saying which."""


class _TextCache:
    """Extracted texts by content hash; one extraction per content even when asked concurrently."""

    def __init__(self, keep: int = KEEP_TEXTS) -> None:
        self.keep = keep
        self._texts: OrderedDict[str, str] = OrderedDict()
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.extractions = 0  # how many times a PDF was actually parsed (tests)

    def text(self, pdf: Path) -> str:
        digest = file_sha256(pdf)
        with self._guard:
            lock = self._locks.setdefault(digest, threading.Lock())
        with lock:  # a second caller for the same content waits for the first one's result
            with self._guard:
                if digest in self._texts:
                    self._texts.move_to_end(digest)
                    return self._texts[digest]
            text = extract_text(pdf)
            with self._guard:
                self.extractions += 1
                self._texts[digest] = text
                while len(self._texts) > self.keep:
                    dropped, _ = self._texts.popitem(last=False)
                    self._locks.pop(dropped, None)
            return text

    def clear(self) -> None:
        with self._guard:
            self._texts.clear()
            self._locks.clear()
            self.extractions = 0


TEXTS = _TextCache()


def pdf_as_text(pdf: Path) -> str:
    """The text of `pdf`, extracted once per file content (blocking: run it in a thread)."""
    return TEXTS.text(pdf)


def extract_text(pdf: Path) -> str:
    """Every page's text under a page heading, so a model can still cite pages.

    Raises OSError when the file cannot be read, PdfTextError when pypdf cannot parse it or it
    holds no text layer.
    """
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(pdf)
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except OSError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        # pypdf raises its own errors for broken files, and plain ones from deep inside a bad one
        log.info("cannot extract text from %s: %s", pdf.name, type(exc).__name__)
        raise PdfTextError(f"{pdf.name} could not be read as a PDF") from None
    if not any(pages):
        raise PdfTextError(f"{pdf.name} has no text layer (a scan?)")
    body = "\n\n".join(f"--- Page {number} ---\n{text}" for number, text in enumerate(pages, start=1) if text)
    return (
        f'[The attached PDF "{pdf.name}" ({plural(len(pages), "page")}), as text extracted from it. '
        "Figures, images and most layout are not included.]\n\n" + body
    )


def pdf_data_url(pdf: Path) -> str:
    """`data:application/pdf;base64,...` for a `file` content part (blocking: run it in a thread)."""
    return f"data:{PDF_MIME};base64," + base64.b64encode(pdf.read_bytes()).decode("ascii")
