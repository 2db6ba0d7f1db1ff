"""PDF pages to pixels natively, with pypdfium2 (PDFium). Never imported in Pyodide: the browser renders with pdf.js.

Each page is rendered at `document.dpi` to exactly the size `document.render_scale` gives (the browser renders
to the same size), on white, with the annotations' appearance streams drawn (FPDF_ANNOT) but no interactive
form layer (forms are never initialised), as RGB uint8.
"""
from __future__ import annotations

import ctypes

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from retto.io import document
from retto.config import Config
from retto.errors import INTERNAL_ERROR, PDF_ENCRYPTED, PDF_INVALID, RettoError
from retto.io.pdf_guard import UNKNOWN_ENCRYPTION, PageGuard

_LOAD_ERRORS = {
    pdfium_c.FPDF_ERR_PASSWORD: (PDF_ENCRYPTED, "the PDF is encrypted and needs a password; remove the password "
                                                "(e.g. qpdf --decrypt) and try again"),
    pdfium_c.FPDF_ERR_SECURITY: (PDF_ENCRYPTED, UNKNOWN_ENCRYPTION),
    pdfium_c.FPDF_ERR_FORMAT: (PDF_INVALID, "the PDF is broken or not a PDF (PDFium: data format error)"),
    pdfium_c.FPDF_ERR_FILE: (PDF_INVALID, "the PDF could not be read (PDFium: file error)"),
}


def open_pdf(data: bytes) -> pdfium.PdfDocument:
    """The document, or RettoError pdf_encrypted / pdf_invalid. Opened through PDFium's own loader because
    pypdfium2's refuses a zero-page file as if it were broken; here that one opens, and pdf_empty is decided by
    `document.check_page_count` like every other limit."""
    handle = pdfium_c.FPDF_LoadMemDocument64(data, len(data), None)
    if not handle:
        code, message = _LOAD_ERRORS.get(pdfium_c.FPDF_GetLastError(),
                                         (PDF_INVALID, "the PDF is broken or not a PDF (PDFium could not load it)"))
        raise RettoError(code, message)
    return pdfium.PdfDocument(handle)


def pdf_pages(data: bytes, cfg: Config, with_text: bool = False):
    """(page_count, iterator of (page_no, rgb ndarray | RettoError, dpi, warning | None)); with_text, each tuple
    also ends with the page's text layer (`page_text`'s tuple, or None when the page failed). Whole-document errors
    (encrypted, broken, empty, too many pages) are raised here, before any page is rendered; a page that cannot
    be rendered is yielded as its RettoError and the next page follows. `data` must stay alive while iterating
    (PDFium reads from it), which the iterator itself ensures."""
    guard = PageGuard(data, cfg.document)   # measured before PDFium loads a page: loading parses it whole
    try:
        doc = open_pdf(data)
    except RettoError as err:
        raise guard.open_error(err.code, err.message) from None
    try:
        if guard.refusal:
            raise guard.refusal
        count = guard.page_count(len(doc))
        document.check_page_count(count, cfg.document.max_pages)
    except BaseException:
        doc.close()
        raise
    return count, _iter_pages(doc, data, cfg, guard, count, with_text)


def _iter_pages(doc: pdfium.PdfDocument, data: bytes, cfg: Config, guard: PageGuard, count: int,
                with_text: bool = False):
    try:
        for index in range(count):
            text = None
            try:
                over = guard.check(index)
                if over is not None:
                    raise over
                rgb, dpi, warning = render_page(doc, index, cfg.document.dpi, cfg.global_.max_pixels)
                if with_text:
                    try:
                        text = page_text(doc, index)
                    except Exception:   # an unreadable text layer: the page is read by OCR instead
                        text = None
            except RettoError as err:
                rgb, dpi, warning = err, None, None
            except Exception as exc:   # PDFium refusing one page must not end the document
                rgb, dpi, warning = RettoError(INTERNAL_ERROR, f"the page could not be rendered: {exc}"), None, None
            yield (index + 1, rgb, dpi, warning, text) if with_text else (index + 1, rgb, dpi, warning)
    finally:
        doc.close()
        del data


def page_text(doc: pdfium.PdfDocument, index: int):
    """(text items, image rectangles, width_pt, height_pt) of page `index` for retto.io.text_layer: one item per
    character PDFium finds (its origin on the baseline, its advance from the loose box, its font size), and the
    bounds of the page's image objects; points, top-left origin, as displayed (PDFium's page-to-device mapping
    at 1 pixel per point applies the page's /Rotate and box origin)."""
    page = doc[index]
    try:
        width_pt, height_pt = page.get_size()
        textpage = page.get_textpage()
        try:
            items = []
            raw = textpage.raw
            x, y = ctypes.c_double(), ctypes.c_double()
            for i in range(textpage.count_chars()):
                code = pdfium_c.FPDFText_GetUnicode(raw, i)
                ch = chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else ""
                if pdfium_c.FPDFText_IsGenerated(raw, i) == 1 or not ch or ch in "\r\n":
                    ch = " "    # PDFium's own word and line breaks: a break, not a character of the page
                size = pdfium_c.FPDFText_GetFontSize(raw, i)
                if not pdfium_c.FPDFText_GetCharOrigin(raw, i, x, y):
                    continue
                left, _bottom, right, _top = textpage.get_charbox(i, loose=True)
                (ox, oy), (rx, _ry) = _to_display(page, width_pt, height_pt, (x.value, y.value), (right, y.value))
                (lx, _ly), _ = _to_display(page, width_pt, height_pt, (left, y.value), (left, y.value))
                items.append({"text": ch, "x": min(ox, lx), "y": oy, "w": abs(rx - min(ox, lx)), "size": size})
        finally:
            textpage.close()
        images = []
        for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,)):
            left, bottom, right, top = obj.get_bounds()
            (x0, y0), (x1, y1) = _to_display(page, width_pt, height_pt, (left, bottom), (right, top))
            images.append([min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)])
    finally:
        page.close()
    return items, images, width_pt, height_pt


def _to_display(page, width_pt, height_pt, *points):
    """Page-space points -> display points (top-left origin, /Rotate applied), via PDFium at 1 px per point
    (scaled by 16 so its whole-pixel rounding stays under 1/16 pt)."""
    out = []
    dx, dy = ctypes.c_int(), ctypes.c_int()
    for px, py in points:
        pdfium_c.FPDF_PageToDevice(page.raw, 0, 0, round(width_pt * 16), round(height_pt * 16), 0,
                                   ctypes.c_double(px), ctypes.c_double(py), dx, dy)
        out.append((dx.value / 16, dy.value / 16))
    return out


def render_page(doc: pdfium.PdfDocument, index: int, dpi: int, max_pixels: int):
    """(rgb HxWx3 uint8, dpi used, warning | None) for page `index` (0-based)."""
    page = doc[index]
    try:
        width_pt, height_pt = page.get_size()   # as displayed: PDFium swaps them for /Rotate 90 and 270
        dpi_used, w, h, warning = document.render_scale(width_pt, height_pt, dpi, max_pixels)
        bitmap = pdfium.PdfBitmap.new_native(w, h, pdfium_c.FPDFBitmap_BGR, rev_byteorder=True)
        try:
            bitmap.fill_rect((255, 255, 255, 255), 0, 0, w, h)
            # The page scaled into exactly w x h; REVERSE_BYTE_ORDER makes the 3-byte pixels RGB.
            pdfium_c.FPDF_RenderPageBitmap(bitmap, page, 0, 0, w, h, 0,
                                           pdfium_c.FPDF_ANNOT | pdfium_c.FPDF_REVERSE_BYTE_ORDER)
            rgb = np.array(bitmap.to_numpy()[:, :, :3], dtype=np.uint8, copy=True)
        finally:
            bitmap.close()
    finally:
        page.close()
    return rgb, dpi_used, warning
