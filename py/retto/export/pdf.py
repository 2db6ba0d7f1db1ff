"""Searchable PDF: each page's picture with an invisible text layer placed word by word (fpdf2, pure Python, so
the browser's Pyodide runs this same code). Reached through `retto.export.searchable_pdf`.

The text is drawn in render mode 3 (invisible) in a font made here with fontTools: one blank glyph that every
code point of the text maps to, half an em wide, ascent 0.8 em and descent 0.2 em. So a word drawn at a font
size equal to its box height, on a baseline 0.2 of that height above the box bottom, and stretched horizontally
(Tz) to the box width, covers exactly its box, for any script, with no font file shipped.
"""
from __future__ import annotations

import datetime
import io
import math
import os
import tempfile

import numpy as np
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fpdf import FPDF
from fpdf.enums import TextMode
from PIL import Image

from retto._version import __version__
from retto.records import has_result, line_words, pages_of
from retto.io.image import SAFE_FORMATS, decode

DEFAULT_DPI = 200          # an image that states no resolution is taken to be this
UNITS_PER_EM = 1000
ASCENT, DESCENT = 800, 200  # font units; ASCENT + DESCENT = one em, so font size = box height
ADVANCE = 500
FIXED_DATE = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)   # same input, same bytes
FONT_NAME = "RettoGlyphless"
PAGE_JPEG_QUALITY = 85     # rendered PDF pages behind the text (Pillow's scale; the browser uses the same)


def searchable_pdf(record: dict, page_images) -> bytes:
    """record: an image result record or a document record (`retto.io.document`); page_images: one entry per page
    of the record, in order: encoded image bytes (PNG/JPEG embedded as given), an HxWx3 uint8 array, a PIL image,
    or None (no picture: the page is the record's size, text layer only; a failed page without a picture is left
    out). Page size: the picture's pixels at the page's DPI (a PDF page's `dpi`, else the DPI the image file
    states, else 200) at 72 pt per inch. Raises ValueError for a record without any page result."""
    pages = pages_of(record)
    if not has_result(record):
        raise ValueError(f"{record.get('path', '')} has no result to export")
    codepoints = {ord(c) for _, page in pages if "error" not in page
                  for line in page["lines"] for word in line_words(line) for c in word["text"]}
    pdf = FPDF(unit="pt")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_producer(f"retto {__version__}")
    pdf.set_creator(f"retto {__version__}")
    pdf.set_title(os.path.basename(str(record.get("path", ""))))   # the file's name, not where it was
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    with tempfile.TemporaryDirectory() as tmp:   # fpdf2 reads fonts from files only (Pyodide: its memory FS)
        font_path = os.path.join(tmp, "glyphless.ttf")
        with open(font_path, "wb") as f:
            f.write(glyphless_font(codepoints))
        pdf.add_font(FONT_NAME, fname=font_path)
        pdf.text_mode = TextMode.INVISIBLE
        for (_, page), image in zip(pages, page_images):
            _add_page(pdf, page, image)
        return bytes(pdf.output())


def encode_page(rgb: np.ndarray, quality: int = PAGE_JPEG_QUALITY) -> bytes:
    """A rendered PDF page as JPEG bytes for the picture layer: about a third of the lossless size on scans."""
    out = io.BytesIO()
    _rgb(rgb).save(out, format="JPEG", quality=quality)
    return out.getvalue()


def glyphless_font(codepoints) -> bytes:
    """A TrueType font whose every mapped code point (plus the space) draws the same empty glyph."""
    fb = FontBuilder(UNITS_PER_EM, isTTF=True)
    fb.setupGlyphOrder([".notdef", "blank"])
    fb.setupCharacterMap({cp: "blank" for cp in sorted(set(codepoints) | {0x20}) if not 0xD800 <= cp <= 0xDFFF})
    empty = TTGlyphPen(None).glyph()
    fb.setupGlyf({".notdef": empty, "blank": empty})
    fb.setupHorizontalMetrics({".notdef": (ADVANCE, 0), "blank": (ADVANCE, 0)})
    fb.setupHorizontalHeader(ascent=ASCENT, descent=-DESCENT)
    fb.setupNameTable({"familyName": FONT_NAME, "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=ASCENT, sTypoDescender=-DESCENT, sTypoLineGap=0, usWinAscent=ASCENT,
                usWinDescent=DESCENT, sxHeight=ASCENT // 2, sCapHeight=ASCENT)
    fb.setupPost()
    stamp = int((FIXED_DATE - datetime.datetime(1904, 1, 1, tzinfo=datetime.timezone.utc)).total_seconds())
    fb.updateHead(created=stamp, modified=stamp)
    fb.font.recalcTimestamp = False
    buf = io.BytesIO()
    fb.save(buf)
    return buf.getvalue()


def _add_page(pdf: FPDF, page: dict, image) -> None:
    failed = "error" in page
    if image is None and failed:
        return
    picture, size, dpi = _picture(image, page)
    w_px, h_px = size or (page["image"]["width"], page["image"]["height"])
    w_pt, h_pt = w_px * 72.0 / dpi[0], h_px * 72.0 / dpi[1]
    pdf.add_page(format=(w_pt, h_pt))
    if picture is not None:
        pdf.image(picture, x=0, y=0, w=w_pt, h=h_pt)
    if not failed:
        # Word boxes are in the record's pixels; the picture may differ in size only by being given another way.
        sx, sy = w_pt / page["image"]["width"], h_pt / page["image"]["height"]
        for line in page["lines"]:
            # A right-to-left word's letters are placed in the order its ink runs, left to right (its code points
            # reversed): text extractors (pdftotext, viewers' copy) put right-to-left glyphs back in logical order.
            rtl = line.get("direction") == "rtl"
            for word in line_words(line):
                _place_word(pdf, word["text"][::-1] if rtl else word["text"],
                            [(x * sx, y * sy) for x, y in word["box"]])


def _picture(image, page: dict):
    """(what fpdf2 embeds: the file's bytes, a PIL image or None; (width, height) in pixels; (x dpi, y dpi)).
    Plain JPEG and PNG bytes go in as they are (fpdf2 embeds a JPEG without re-encoding); any other file, an
    EXIF-turned or a CMYK one, is decoded the way the OCR read it (`retto.io.image.decode`: safe formats only, EXIF
    applied, alpha on white), so the picture is what was read."""
    page_dpi = page.get("dpi")
    if image is None:
        return None, None, (page_dpi or DEFAULT_DPI,) * 2
    if isinstance(image, Image.Image):
        image = np.asarray(image.convert("RGB"))
    if isinstance(image, np.ndarray):
        return _rgb(image), (image.shape[1], image.shape[0]), (page_dpi or DEFAULT_DPI,) * 2
    if not isinstance(image, (bytes, bytearray, memoryview)):
        raise TypeError(f"unsupported page image type {type(image).__name__}")
    data = bytes(image)
    im = Image.open(io.BytesIO(data), formats=SAFE_FORMATS)
    dpi = (page_dpi, page_dpi) if page_dpi else _stated_dpi(im)
    plain = {"JPEG": ("L", "RGB"), "PNG": ("1", "L", "LA", "P", "RGB", "RGBA")}.get(im.format, ())
    if im.mode in plain and im.getexif().get(0x0112, 1) in (1, None):
        return io.BytesIO(data), im.size, dpi   # fpdf2 copies a JPEG's bytes from a file-like source unchanged
    rgb = decode(data)
    return _rgb(rgb), (rgb.shape[1], rgb.shape[0]), dpi


def _rgb(array: np.ndarray) -> Image.Image:
    return Image.fromarray(np.ascontiguousarray(array[:, :, :3], dtype=np.uint8), "RGB")


def _stated_dpi(im: Image.Image) -> tuple:
    dpi = im.info.get("dpi")
    try:
        x, y = float(dpi[0]), float(dpi[1])
    except (TypeError, ValueError, IndexError):
        return DEFAULT_DPI, DEFAULT_DPI
    return (x, y) if x >= 1 and y >= 1 else (DEFAULT_DPI, DEFAULT_DPI)


def _place_word(pdf: FPDF, text: str, box: list) -> None:
    """Draw `text` invisibly over the quad `box` (tl, tr, br, bl in the text's own order, points, y down)."""
    if not text.strip():
        return
    (tlx, tly), (trx, try_), _, (blx, bly) = box
    width = math.hypot(trx - tlx, try_ - tly)
    height = math.hypot(blx - tlx, bly - tly)
    if width < 0.1 or height < 0.1:
        return
    size = height * UNITS_PER_EM / (ASCENT + DESCENT)
    down = DESCENT / (ASCENT + DESCENT)
    x, y = blx + (tlx - blx) * down, bly + (tly - bly) * down   # the baseline's start
    pdf.set_font(FONT_NAME, size=size)
    # Every glyph of the font advances ADVANCE units (fpdf2's get_string_width would include the current Tz).
    natural = len(text) * size * ADVANCE / UNITS_PER_EM
    pdf.set_stretching(100.0 * width / natural)
    angle = math.degrees(math.atan2(-(try_ - tly), trx - tlx))   # counter-clockwise, as fpdf2 turns
    if abs(angle) < 0.01:
        pdf.text(x, y, text)
    else:
        with pdf.rotation(angle, x=x, y=y):
            pdf.text(x, y, text)
