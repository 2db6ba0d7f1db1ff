"""The part of a page that holds anything but background, so detection can skip blank margins.

The det model's time grows with its input's pixels, and a scanned page is often a third text and two thirds margin
(every labelled page of a filing, table or letter: their text ends halfway down). Detection then runs on the
content box only (det.content_crop), and its boxes are shifted back. Cropping may only ever lose blank paper, so
the test is loose: a 4 x 4 block is ink when two of its pixels differ from the background (the border's median)
by more than INK (one faint stroke crossing it is enough), and ink counts when it touches other ink (an isolated
speck of scan noise does not; a lone "1" or dash spans several blocks). MARGIN pixels are kept around the ink.
"""
from __future__ import annotations

import numpy as np

BLOCK = 4          # pixels per side of the blocks the page is judged in
INK = 40           # grey-level difference from the background that counts as ink
MIN_PIXELS = 2     # pixels of a block that must differ for it to be ink (one alone is noise)
MARGIN = 128        # page pixels kept around the ink (the det map needs blank paper around each line)
ALIGN = 32         # the det model's input sides are multiples of this
MAX_SHARE = 0.8    # a box covering more of the page than this is not worth a separate path: detect it all


def content_box(img: np.ndarray) -> tuple | None:
    """(x0, y0, x1, y1) of the content in `img` (RGB uint8), sides multiples of ALIGN, or None when the content
    fills nearly all of it (or there is none)."""
    h, w = img.shape[:2]
    hb, wb = h // BLOCK, w // BLOCK
    if hb < 2 or wb < 2:
        return None
    part = img[:hb * BLOCK, :wb * BLOCK]
    # Channel sums by plane (0..765): a reduction over the last axis of a whole page is several times slower,
    # and this runs before every detection (in Pyodide too).
    grey = part[..., 0].astype(np.int16)
    grey += part[..., 1]
    grey += part[..., 2]
    border = np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])
    background = int(np.median(border))
    diff = ((grey > background + INK * 3) | (grey < background - INK * 3)).view(np.uint8)
    # Pixels off the background per 4 x 4 block, summed as uint8 (at most 16) row by row, then column by column.
    rows4 = diff.reshape(hb, BLOCK, wb * BLOCK)
    per_row = rows4[:, 0] + rows4[:, 1] + rows4[:, 2] + rows4[:, 3]
    cols4 = per_row.reshape(hb, wb, BLOCK)
    ink = (cols4[..., 0] + cols4[..., 1] + cols4[..., 2] + cols4[..., 3]) >= MIN_PIXELS
    ink &= _touching(ink)
    rows = np.flatnonzero(ink.any(axis=1))
    cols = np.flatnonzero(ink.any(axis=0))
    if not rows.size or not cols.size:
        return None
    y0, y1 = _span(rows[0] * BLOCK - MARGIN, (rows[-1] + 1) * BLOCK + MARGIN, h)
    x0, x1 = _span(cols[0] * BLOCK - MARGIN, (cols[-1] + 1) * BLOCK + MARGIN, w)
    if (x1 - x0) * (y1 - y0) > MAX_SHARE * w * h:
        return None
    return x0, y0, x1, y1


def _touching(ink: np.ndarray) -> np.ndarray:
    """Blocks with an ink block among their 8 neighbours."""
    p = np.pad(ink, 1)
    h, w = ink.shape
    out = np.zeros_like(ink)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            if (dy, dx) != (1, 1):
                out |= p[dy:dy + h, dx:dx + w]
    return out


def _span(a: int, b: int, size: int) -> tuple:
    """[a, b) widened to a multiple of ALIGN and moved inside [0, size); the whole side when it does not fit."""
    length = -(-(b - max(a, 0)) // ALIGN) * ALIGN
    if length >= size - ALIGN:
        return 0, size
    a = min(max(a, 0), size - length)
    return a, a + length
