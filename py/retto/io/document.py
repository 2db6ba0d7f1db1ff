"""A document is pages: the records of a multi-page input (a PDF) and the one rule for a page's pixel size.

Pure Python, used by both runtimes: the CLI (pages rendered by pypdfium2, `retto.native.pdf_render`) and the browser
(pages rendered by pdf.js, records built here through Pyodide). Records are plain JSON-ready dicts:

- page record: a page's `OcrResult.to_dict()` plus `page` (1-based), `source` ("ocr", or "text" for a page read
  from its own text layer, retto.io.text_layer) and, for a rendered PDF page, `dpi`;
  a page that failed: `{"page", "error": {"code", "message"}}`.
- document record: `{"path", "kind": "pdf", "page_count", "pages": [page records], "warnings"?}`.
- an image input stays the single-page result record it always was (no `pages`).
"""
from __future__ import annotations

import math

from retto.errors import IMAGE_TOO_LARGE, PDF_EMPTY, PDF_INVALID, PDF_TOO_MANY_PAGES, RettoError

POINTS_PER_INCH = 72.0   # PDF user space unit (the user unit of PDF 1.6 is ignored: PDFium does, pdf.js is told to)


# Image files that could carry "%PDF-" in a text chunk of their first KB are never taken for PDFs.
IMAGE_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"RIFF", b"BM", b"II*\x00", b"MM\x00*")


def is_pdf(data: bytes) -> bool:
    """A PDF by its header: `%PDF-` within the first 1024 bytes, as PDF readers (pdf.js, PDFium) accept it after
    leading junk, unless the file starts as an image does. Never by the file name."""
    head = bytes(data[:1024])
    return b"%PDF-" in head and not head.startswith(IMAGE_MAGIC)


def page_record(result_dict: dict, page: int, dpi: int | None = None, source: str = "ocr") -> dict:
    """source: "ocr" (read from the rendered page) or "text" (the page's own text layer, retto.io.text_layer)."""
    record = {"page": page, **result_dict, "source": source}
    if dpi is not None:
        record["dpi"] = dpi
    return record


def page_error(page: int, code: str, message: str) -> dict:
    return {"page": page, "error": {"code": code, "message": message}}


def document_record(path: str, pages: list, page_count: int, warnings=()) -> dict:
    record = {"path": path, "kind": "pdf", "page_count": page_count, "pages": list(pages)}
    if warnings:
        record["warnings"] = list(warnings)
    return record


def is_document(record: dict) -> bool:
    return "pages" in record


def failed_pages(record: dict) -> list:
    """The page numbers of a document record whose OCR failed (an image record has none)."""
    return [p["page"] for p in record.get("pages", ()) if "error" in p]


def pixel_size(width_pt: float, height_pt: float, dpi: float) -> tuple[int, int]:
    """The rendered size in whole pixels: round(points * dpi / 72), at least 1 (half-way rounds to even, the
    same in every runtime because every runtime calls this)."""
    scale = dpi / POINTS_PER_INCH
    return max(1, round(width_pt * scale)), max(1, round(height_pt * scale))


def render_scale(width_pt: float, height_pt: float, dpi: int, max_pixels: int):
    """(dpi_used, width_px, height_px, warning | None) for a page of width_pt x height_pt points (as displayed,
    i.e. after the page's /Rotate). This is the one place a rendered page's pixel size is decided: pdf.js and
    pypdfium2 both render to exactly this size. A page that would exceed max_pixels at `dpi` is rendered at the
    largest whole DPI that fits, and the warning says so."""
    if not (width_pt > 0 and height_pt > 0 and math.isfinite(width_pt) and math.isfinite(height_pt)):
        raise RettoError(PDF_INVALID, f"the page has no usable size ({width_pt} x {height_pt} points)")
    w, h = pixel_size(width_pt, height_pt, dpi)
    if w * h <= max_pixels:
        return dpi, w, h, None
    # Start from the real-valued answer, then step: rounding to whole pixels can allow a few DPI more or fewer.
    fit = min(int(POINTS_PER_INCH * math.sqrt(max_pixels / (width_pt * height_pt))), dpi - 1)
    while fit >= 1 and _pixels(width_pt, height_pt, fit) > max_pixels:
        fit -= 1
    while fit >= 1 and fit + 1 < dpi and _pixels(width_pt, height_pt, fit + 1) <= max_pixels:
        fit += 1
    if fit < 1:
        raise RettoError(IMAGE_TOO_LARGE, f"the page is {width_pt:g} x {height_pt:g} points: even at 1 DPI it is "
                                          f"over global.max_pixels ({max_pixels / 1e6:g} megapixels)")
    fw, fh = pixel_size(width_pt, height_pt, fit)
    warning = (f"the page is {width_pt:g} x {height_pt:g} points: at {dpi} DPI it would be {w}x{h} pixels, over "
               f"global.max_pixels ({max_pixels / 1e6:g} megapixels); rendered at {fit} DPI ({fw}x{fh}) instead")
    return fit, fw, fh, warning


def _pixels(width_pt: float, height_pt: float, dpi: int) -> int:
    w, h = pixel_size(width_pt, height_pt, dpi)
    return w * h


def check_page_count(n: int, max_pages: int) -> None:
    """pdf_empty for no pages, pdf_too_many_pages over the stated limit (saying how to raise it)."""
    if n < 1:
        raise RettoError(PDF_EMPTY, "the PDF has no pages")
    if n > max_pages:
        raise RettoError(PDF_TOO_MANY_PAGES, f"the PDF has {n} pages; the limit is {max_pages} (raise it with "
                                             "document.max_pages in the config, or the CLI's --max-pages)")
