"""A PDF page's own text layer, read instead of OCR when it is there (config document.text_layer).

Pure Python, for both runtimes: natively pypdfium2 hands in PDFium's characters (retto.native.pdf_render.page_text), in
the browser the worker hands in pdf.js's getTextContent items; both as *text items* in points, top-left origin,
as the page is displayed: `{"text", "x" (left), "y" (baseline), "w" (advance width), "size" (font size)}`, plus
the areas of the page's images. This module decides whether the page is read from its text (`source: "text"`) or
by OCR (`source: "ocr"`) and builds the page result from the items:

- `ocr`: always OCR (the pages are rendered and read as before).
- `text`: the text layer wherever the page has one; OCR for pages without text.
- `auto`: the text layer unless the page also carries images over IMAGE_SHARE of its area (a scan, or a scan with
  a partial text layer: its text may be a stamp or a header only), then OCR.

An item holding several words (pdf.js gives one item per text-showing operator) is split at its spaces by its
characters' glyph advances (`advances`, which the worker reads from the page's operator list; evenly when it has
none), since pdf.js gives no per-glyph positions; PDFium's one item per character is exact.
"""
from __future__ import annotations

from retto.config import check_text_layer_mode

IMAGE_SHARE = 0.25        # images over this share of the page area: `auto` reads the page by OCR
ASCENT, DESCENT = 0.8, 0.2   # a word's box: from ASCENT x size above the baseline to DESCENT x size below it
JOIN_GAP = 0.15           # pieces closer than this x size on one baseline are one word
SAME_BASELINE = 0.3       # baselines closer than this x size are one line


def _pieces(items: list) -> list:
    """Each item's runs of non-space characters as [text, x0, x1, baseline, size], in content order."""
    out = []
    for it in items:
        text, size = str(it.get("text", "")), float(it.get("size") or 0)
        if not text or size <= 0:
            continue
        x, w, y = float(it["x"]), float(it["w"]), float(it["y"])
        # Where each character starts: by its glyph advance when the runtime knows them, else evenly.
        adv = it.get("advances")
        if not (isinstance(adv, list) and len(adv) == len(text) and sum(adv) > 0):
            adv = [1.0] * len(text)
        at, total = [0.0], float(sum(adv))
        for a in adv:
            at.append(at[-1] + w * float(a) / total)
        start = None
        for i, ch in enumerate(text + " "):
            if ch.isspace():
                if start is not None:
                    out.append([text[start:i], x + at[start], x + at[i], y, size])
                    start = None
            elif start is None:
                start = i
        if text[-1:].isspace() and out and out[-1][0] != " ":
            out.append([" ", x + w, x + w, y, size])   # a trailing space still breaks the word
    return out


def words_of(items: list) -> list:
    """The page's words [text, x0, x1, baseline, size], pieces on one baseline that touch joined into one."""
    words = []
    for text, x0, x1, y, size in _pieces(items):
        prev = words[-1] if words else None
        if text == " ":
            if prev is not None:
                prev.append("end")   # nothing joins a word followed by a space
            continue
        if (prev is not None and len(prev) == 5 and abs(y - prev[3]) < SAME_BASELINE * size
                and -JOIN_GAP * size <= x0 - prev[2] < JOIN_GAP * size):
            prev[0] += text
            prev[2] = max(prev[2], x1)
        else:
            words.append([text, x0, x1, y, size])
    return [w[:5] for w in words]


def lines_of(words: list) -> list:
    """Words grouped into lines: the same baseline, running left to right."""
    lines = []
    for w in words:
        cur = lines[-1] if lines else None
        if cur and abs(w[3] - cur[-1][3]) < SAME_BASELINE * w[4] and w[1] >= cur[-1][2] - w[4] * 0.5:
            cur.append(w)
        else:
            lines.append([w])
    return lines


def image_share(images: list, width_pt: float, height_pt: float) -> float:
    """The page area its images cover ([x0, y0, x1, y1] rectangles in points, clipped to the page; overlaps are
    counted once per image, an upper bound that only matters past IMAGE_SHARE)."""
    page = width_pt * height_pt
    if page <= 0:
        return 0.0
    area = 0.0
    for x0, y0, x1, y1 in images:
        w = min(max(x0, x1), width_pt) - max(min(x0, x1), 0.0)
        h = min(max(y0, y1), height_pt) - max(min(y0, y1), 0.0)
        area += max(w, 0.0) * max(h, 0.0)
    return area / page


def page_result(items: list, images: list, width_pt: float, height_pt: float, width_px: int, height_px: int,
                mode: str) -> dict | None:
    """The page's result read from its text layer (the same shape as OCR's, `source: "text"`, boxes in pixels of
    the page rendered at width_px x height_px), or None when the page is to be read by OCR."""
    check_text_layer_mode(mode)
    if mode == "ocr":
        return None
    words = words_of(items)
    if not words or (mode == "auto" and image_share(images, width_pt, height_pt) > IMAGE_SHARE):
        return None
    sx, sy = width_px / width_pt, height_px / height_pt

    def box(x0, x1, y, size):
        top, bottom = (y - ASCENT * size) * sy, (y + DESCENT * size) * sy
        return [[round(x0 * sx, 2), round(top, 2)], [round(x1 * sx, 2), round(top, 2)],
                [round(x1 * sx, 2), round(bottom, 2)], [round(x0 * sx, 2), round(bottom, 2)]]

    lines = []
    for line in lines_of(words):
        size = max(w[4] for w in line)
        y = max(w[3] for w in line)
        lines.append({"box": box(line[0][1], max(w[2] for w in line), y, size),
                      "text": " ".join(w[0] for w in line), "score": 1.0, "angle": 0,
                      "words": [{"text": w[0], "box": box(w[1], w[2], w[3], w[4]), "score": 1.0} for w in line]})
    return {"image": {"width": int(width_px), "height": int(height_px)}, "page_angle": 0,
            "page_angle_confidence": None, "lines": lines, "blocks": [], "timings": {}, "source": "text",
            "warnings": []}
