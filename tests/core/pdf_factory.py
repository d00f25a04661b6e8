"""PDFs the quote-check tests write with fpdf2: text pages, ligatures, encryption, a scan.

fpdf2 is a maintained pure-Python PDF writer (no system libraries), embeds TrueType fonts with a
ToUnicode map (so pypdf reads ligature glyphs back as "ﬁ"), and encrypts with a user password:
the cases a quote check must cope with, in a few lines each.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

UNICODE_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def text_pdf(
    path: Path,
    pages: list[str],
    *,
    header: str | None = None,
    page_numbers: bool = False,
    unicode_font: bool = False,
    user_password: str | None = None,
    owner_password: str | None = None,
) -> Path:
    """One page per string, its lines as written (no reflow), optionally with a running header
    and a page number at the bottom, as journals print them."""
    pdf = FPDF()
    pdf.set_auto_page_break(False)
    if owner_password or user_password:
        pdf.set_encryption(owner_password=owner_password or "owner", user_password=user_password)
    if unicode_font:
        if not UNICODE_FONT.exists():
            pytest.skip(f"needs the DejaVu Sans font ({UNICODE_FONT}) for ligature glyphs")
        pdf.add_font("Unicode", fname=str(UNICODE_FONT))
    family = "Unicode" if unicode_font else "Helvetica"
    for number, text in enumerate(pages, start=1):
        pdf.add_page()
        pdf.set_font(family, size=10)
        if header:
            pdf.set_xy(20, 10)
            pdf.cell(text=header)
        pdf.set_xy(20, 25)
        for line in text.split("\n"):
            pdf.set_x(20)
            pdf.cell(text=line, new_x="LMARGIN", new_y="NEXT")
        if page_numbers:
            pdf.set_xy(100, 280)
            pdf.cell(text=str(number))
    pdf.output(str(path))
    return path


def scan_pdf(path: Path, pages: int = 2) -> Path:
    """Pages holding only drawings, as a scanned paper holds only images: no text layer."""
    pdf = FPDF()
    for _ in range(pages):
        pdf.add_page()
        pdf.rect(20, 20, 170, 250, style="F")
    pdf.output(str(path))
    return path
