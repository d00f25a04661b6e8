"""The PDF's text layer: read once per content into the home's cache; scans, locked and broken files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ensemble_tui.core.paper import pdf_pages
from ensemble_tui.core.paper.pdf_pages import NO_TEXT_LAYER, PdfTextUnavailable, file_sha256, read_page_texts
from ensemble_tui.core.store.home import HomePaths
from tests.core.pdf_factory import scan_pdf, text_pdf


@pytest.fixture
def extractions(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every PDF pypdf is asked to read, in order."""
    seen: list[Path] = []
    extract = pdf_pages._extract

    def counted(pdf: Path, digest: str) -> pdf_pages.CachedPageTexts:
        seen.append(pdf)
        return extract(pdf, digest)

    monkeypatch.setattr(pdf_pages, "_extract", counted)
    return seen


def test_pages_are_read_once_per_content_even_from_a_copy(
    sample_pdf: Path, tmp_path: Path, extractions: list[Path]
) -> None:
    cache = HomePaths(tmp_path / "home").cache
    first = read_page_texts(sample_pdf, cache)
    copy = shutil.copyfile(sample_pdf, tmp_path / "renamed copy.pdf")
    again = read_page_texts(copy, cache)
    assert extractions == [sample_pdf]
    assert again == first and len(first.pages) == 2
    assert "answered 87 correctly" in first.pages[0] and first.pages[1].startswith("4  Discussion")
    assert first.notice is None
    stored = json.loads((cache / f"pdf-text-{file_sha256(sample_pdf)}.json").read_text(encoding="utf-8"))
    assert stored["schema_version"] == 1 and stored["pages"] == list(first.pages)


def test_a_broken_cache_file_is_read_again_and_replaced(
    sample_pdf: Path, tmp_path: Path, extractions: list[Path]
) -> None:
    cache = tmp_path / "Cache"
    expected = read_page_texts(sample_pdf, cache)
    cached = cache / f"pdf-text-{expected.sha256}.json"
    cached.write_text('{"schema_version": 1, "pages": [', encoding="utf-8")
    assert read_page_texts(sample_pdf, cache) == expected
    assert read_page_texts(sample_pdf, cache) == expected
    assert len(extractions) == 2
    assert json.loads(cached.read_text(encoding="utf-8"))["pages"] == list(expected.pages)


def test_a_scan_has_no_text_layer_and_says_so_without_an_error(tmp_path: Path) -> None:
    texts = read_page_texts(scan_pdf(tmp_path / "scan.pdf", pages=3), tmp_path / "Cache")
    assert len(texts.pages) == 3 and not texts.has_text_layer
    assert texts.notice == NO_TEXT_LAYER == "This PDF has no text layer; quotes cannot be checked."


def test_an_encrypted_pdf_gives_one_line_and_is_not_read_again(tmp_path: Path, extractions: list[Path]) -> None:
    locked = text_pdf(tmp_path / "locked.pdf", ["Secret findings of the study."], user_password="secret")
    for _ in range(2):
        with pytest.raises(PdfTextUnavailable) as caught:
            read_page_texts(locked, tmp_path / "Cache")
        assert str(caught.value) == "locked.pdf is encrypted; save an unlocked copy to have its quotes checked."
    assert len(extractions) == 1


def test_a_pdf_locked_only_against_editing_opens_like_a_viewer_opens_it(tmp_path: Path) -> None:
    pdf = text_pdf(tmp_path / "restricted.pdf", ["Printing is restricted, reading is not."], owner_password="owner")
    assert "reading is not" in read_page_texts(pdf, tmp_path / "Cache").pages[0]


def test_a_file_pypdf_cannot_read_gives_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ntrailer << >>\n%%EOF\n")
    with pytest.raises(PdfTextUnavailable) as caught:
        read_page_texts(broken, tmp_path / "Cache")
    assert str(caught.value) == "broken.pdf could not be read as a PDF; quotes cannot be checked."


def test_a_missing_file_gives_one_line_and_nothing_is_cached(tmp_path: Path) -> None:
    with pytest.raises(PdfTextUnavailable) as caught:
        read_page_texts(tmp_path / "gone.pdf", tmp_path / "Cache")
    assert str(caught.value) == "gone.pdf cannot be read (No such file or directory); quotes cannot be checked."
    assert not (tmp_path / "Cache").exists()


def test_a_read_only_cache_folder_still_gives_the_pages(sample_pdf: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "Cache"
    blocked.write_text("a file where the cache folder should be", encoding="utf-8")
    assert len(read_page_texts(sample_pdf, blocked).pages) == 2


def test_the_same_file_is_not_hashed_again_and_a_changed_one_is_read_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn reads the paper's text when it starts and after its last answer: the second read
    (same file, unchanged) neither hashes the PDF nor parses the cache again. A file rewritten
    with other pages is read anew."""
    hashed: list[Path] = []
    digest = pdf_pages.file_sha256
    monkeypatch.setattr(pdf_pages, "file_sha256", lambda path: hashed.append(path) or digest(path))
    pdf = text_pdf(tmp_path / "paper.pdf", ["First version of the findings."])
    cache = tmp_path / "Cache"
    first = read_page_texts(pdf, cache)
    assert read_page_texts(pdf, cache) == first
    assert hashed == [pdf]
    text_pdf(tmp_path / "rewritten.pdf", ["Second version, with other findings.", "And a second page."])
    (tmp_path / "rewritten.pdf").replace(pdf)
    second = read_page_texts(pdf, cache)
    assert len(second.pages) == 2 and "Second version" in second.pages[0]
    assert hashed == [pdf, pdf]


def test_a_pdfs_page_count_is_read_once_per_file_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every turn asks for the page count (the budget's bound): an unchanged file is not read
    again; a file rewritten with more pages gives its new count."""
    from ensemble_tui.core.paper.pdf import pdf_info

    reads: list[Path] = []
    read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda path: reads.append(path) or read_bytes(path))
    pdf = text_pdf(tmp_path / "count.pdf", ["One page."])
    assert [pdf_info(pdf).pages for _ in range(3)] == [1, 1, 1]
    assert reads == [pdf]
    text_pdf(tmp_path / "longer.pdf", ["One.", "Two.", "Three."])
    (tmp_path / "longer.pdf").replace(pdf)
    assert pdf_info(pdf).pages == 3
