"""PDFs made at test time with fpdf2 (and one with pypdfium2), from the pinned images and a Debian font.

Kinds: pages that are images (placed so that rendering at `dpi` gives back the image's own pixels), a page of
vector text with known lines, an encrypted one, broken ones, a zero-page one and one with many blank pages.
"""
from __future__ import annotations

import datetime
import io
from pathlib import Path

from fpdf import FPDF
from PIL import Image

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")   # Debian fonts-dejavu-core
FIXED_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)

# The vector-text page's lines: plain words the PP-OCR dictionaries all hold (ASCII, digits, punctuation).
VECTOR_LINES = ["Invoice 2026-114 for the garden works", "Total due: 1,250.00 EUR by 31 March",
                "Thank you for your business."]


def _pdf() -> FPDF:
    pdf = FPDF(unit="pt")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    return pdf


def image_pdf(images: list, dpi: int = 200) -> bytes:
    """One page per image, the page exactly the image's pixel size at `dpi` (points = pixels * 72 / dpi), the
    image filling it. Rendering that page at the same `dpi` maps each image pixel to one output pixel, so the
    rendered page can be compared with the image itself (1:1, no resampling)."""
    pdf = _pdf()
    for image in images:
        with Image.open(image) if isinstance(image, (str, Path)) else _as_is(image) as im:
            im.load()
            w_pt, h_pt = im.width * 72.0 / dpi, im.height * 72.0 / dpi
            pdf.add_page(format=(w_pt, h_pt))
            pdf.image(im, x=0, y=0, w=w_pt, h=h_pt)
    return bytes(pdf.output())


class _as_is:
    def __init__(self, im):
        self.im = im

    def __enter__(self):
        return self.im

    def __exit__(self, *exc):
        return False


def vector_text_pdf(lines=VECTOR_LINES, size_pt: float = 16) -> bytes:
    """An A5 page of real text (DejaVu Sans, embedded): a PDF as a word processor makes it, no image at all."""
    pdf = _pdf()
    pdf.add_font("DejaVu", fname=str(DEJAVU))
    pdf.add_page(format=(419.53, 595.28))   # A5 (148 x 210 mm)
    pdf.set_font("DejaVu", size=size_pt)
    for i, line in enumerate(lines):
        pdf.text(36, 72 + i * size_pt * 2.2, line)
    return bytes(pdf.output())


def stamped_scan_pdf(image=None) -> bytes:
    """A scanned page (baiona.png filling it) with one line of real text on top, as a stamp: partial text."""
    pdf = _pdf()
    pdf.add_font("DejaVu", fname=str(DEJAVU))
    pdf.add_page(format=(400, 420))
    pdf.image(str(image or Path(__file__).resolve().parents[1] / "data" / "baiona.png"), x=0, y=0, w=400, h=420)
    pdf.set_font("DejaVu", size=10)
    pdf.text(10, 410, "Received 2026-03-01")
    return bytes(pdf.output())


def blank_pdf(pages: int = 1, sizes=None) -> bytes:
    """Empty white pages, 200 x 200 pt each, or of the given (width, height) sizes in points."""
    pdf = _pdf()
    for size in sizes or [(200, 200)] * pages:
        pdf.add_page(format=size)
    return bytes(pdf.output())


def encrypted_pdf() -> bytes:
    """Opens only with its user password (RC4, fpdf2's default)."""
    pdf = _pdf()
    pdf.set_encryption(owner_password="owner-secret", user_password="user-secret")
    pdf.add_page(format=(200, 200))
    pdf.set_font("helvetica", size=20)
    pdf.text(20, 100, "secret")
    return bytes(pdf.output())


def garbage_pdf() -> bytes:
    """A PDF header and then nothing a reader can use."""
    return b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + bytes(range(256)) * 8


def truncated_pdf(good: bytes) -> bytes:
    """The first few hundred bytes of a real PDF: header and a little of the first object, no page tree."""
    return good[:300]


def zero_page_pdf() -> bytes:
    """A valid PDF with an empty page tree: fpdf2 refuses to write one, pypdfium2's new document saves as such."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument.new()
    buf = io.BytesIO()
    doc.save(buf)
    doc.close()
    return buf.getvalue()
