"""A document is pages: the records of a multi-page input (a PDF) and the one rule for a page's pixel size.

Pure Python, used by both runtimes: the CLI (pages rendered by pypdfium2, `retto.native.pdf_render`) and the browser
(pages rendered by pdf.js, records built here through Pyodide). Records are plain JSON-ready dicts:

- page record: a page's `OcrResult.to_dict()` plus `page` (1-based), `source` ("ocr", or "text" for a page read
  from its own text layer, retto.io.text_layer) and, for a rendered PDF page, `dpi`;
  a page that failed: `{"page", "error": {"code", "message"}}`.
- document record: `{"path", "kind": "pdf", "page_count", "pages": [page records], "warnings"?}`.
- an image input stays the single-page result record it always was (no `pages`).

`read_pages` is the one page loop of a document, for both runtimes: natively pypdfium2 renders each page
(retto.native.read.ocr_pdf drives it synchronously), in the browser pdf.js does (retto.browser.bridge.read_document
drives it with awaits into JS).
"""
from __future__ import annotations

import math
import time

from retto.stepping import drive
from retto.errors import IMAGE_TOO_LARGE, INTERNAL_ERROR, PDF_EMPTY, PDF_INVALID, PDF_TOO_MANY_PAGES, RettoError

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


# --------------------------------------------------------------------------------------------- the page loop

def unexpected(exc: Exception) -> RettoError:
    """A failure no code foresaw, as the internal_error it is reported as."""
    return RettoError(INTERNAL_ERROR, f"unexpected failure: {type(exc).__name__}: {exc}")


def read_pages(page_count: int, render, read, *, path: str = "", pages=None, text_mode: str = "ocr",
               on_start=None, on_page=None, fatal=()):
    """A document's record from its pages, each rendered and read in turn (the one page loop of both runtimes).

    - render(page_no) -> (rgb | RettoError, dpi, warning | None, text | None): the page's pixels (HxWx3, or HxWx4
      to composite) at the size render_scale gave, or the error that stopped it (its warning still counts); text:
      the page's text layer as (items, images, width_pt, height_pt) for retto.io.text_layer, None when not asked
      for (text_mode "ocr") or unreadable.
    - read(rgb, page_no) -> the page's result dict (OcrResult.to_dict()); a RettoError it raises is the page's
      error, any other exception its internal_error.
    - on_start(page_no, page_count) before a page (may raise to stop the document); on_page(page_no, page_count,
      record, ms) after it (ms: the page's time, rendering included).
    - pages: only these page numbers (None: all; numbers past the end: none). fatal: error codes that end the
      document (raised as RettoError) instead of being one page's error, e.g. the browser's "aborted".

    render, read and on_start may return awaitables: then this returns a coroutine (the browser), else the record
    (natively). Each page's pixels are dropped before the next page is rendered."""
    return drive(_page_steps(page_count, render, read, path, pages, text_mode, on_start, on_page, set(fatal)),
                 boxed=True)


def _page_steps(page_count, render, read, path, pages, text_mode, on_start, on_page, fatal):
    from retto.io.text_layer import page_result
    records, warnings = [], []
    numbers = [n for n in range(1, page_count + 1) if pages is None or n in pages]
    t0 = time.perf_counter()
    for page_no in numbers:
        if on_start is not None:
            (yield on_start(page_no, page_count)).pop()
        rgb, dpi, warning, text = (yield render(page_no)).pop()
        if warning:
            warnings.append(f"page {page_no}: {warning}")
        if isinstance(rgb, RettoError):
            record = page_error(page_no, rgb.code, rgb.message)
        else:
            try:
                own = text and page_result(*text, rgb.shape[1], rgb.shape[0], text_mode)
                if own:
                    record = page_record(own, page_no, dpi, source="text")
                else:
                    record = page_record((yield read(rgb, page_no)).pop(), page_no, dpi)
            except RettoError as err:
                record = page_error(page_no, err.code, err.message)
            except Exception as exc:
                record = page_error(page_no, **unexpected(exc).to_dict()["error"])
        rgb = text = own = None   # this page's pixels go before the next page is rendered, not after
        if "error" in record and record["error"]["code"] in fatal:
            raise RettoError(record["error"]["code"], record["error"]["message"])
        records.append(record)
        if on_page is not None:
            on_page(page_no, page_count, record, (time.perf_counter() - t0) * 1000.0)
        t0 = time.perf_counter()
    return document_record(path, records, page_count, warnings)
