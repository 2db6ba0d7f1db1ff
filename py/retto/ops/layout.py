"""Reading order with columns and paragraphs, from line boxes alone (upright page, skew up to ~10 degrees).

1. Deskew: the boxes are turned by the median slope of the lines, so a slightly rotated page has level lines and
   the gaps between lines and columns stay open.
2. Order by recursive XY-cut: a region is split into columns at a vertical gap (a gutter: narrow next to the
   lines on both sides, so table cells and label/value pairs are not torn apart), else into bands at its widest
   horizontal gaps, top to bottom. A title spanning the columns closes every vertical gap of the page, so it is
   cut off first and read first; a side note in the margin is a column of its own, read after the body.
   What cannot be cut is read row by row, left to right.
3. Blocks: consecutive lines in that order form a block (paragraph, table, note) while each next line sits
   close below (or beside, on the same row) the block, overlaps it horizontally and has a similar height.
"""
from __future__ import annotations

import math

import numpy as np

MAX_SKEW = math.radians(10)   # steeper than this is not a skewed page: leave the boxes as they are
MAX_DEPTH = 60                # recursion guard; deeper regions are read row by row
BLOCK_GAP = 0.6               # a vertical gap above this times the line height starts a new block


def skew_angle(quads) -> float:
    """Median slope (radians, clockwise positive on screen) of the long edges of line-shaped boxes."""
    slopes, weights = [], []
    for q in quads:
        q = np.asarray(q, dtype=np.float64)
        top, left = q[1] - q[0], q[3] - q[0]
        length = math.hypot(*top)
        if length >= 2.0 * math.hypot(*left) and length > 0:
            slopes.append(math.atan2(top[1], top[0]))
            weights.append(length)
    if not slopes:
        return 0.0
    order = np.argsort(slopes)
    cum = np.cumsum(np.asarray(weights)[order])
    angle = slopes[order[int(np.searchsorted(cum, cum[-1] / 2))]]   # length-weighted median
    return angle if abs(angle) <= MAX_SKEW else 0.0


def _rotate(points: np.ndarray, angle: float) -> np.ndarray:
    """Turn points by -angle about the origin (levels lines that slope by `angle`)."""
    c, s = math.cos(angle), math.sin(angle)
    x, y = points[..., 0], points[..., 1]
    return np.stack([x * c + y * s, -x * s + y * c], axis=-1)


def level_boxes(quads, angle: float) -> np.ndarray:
    """[n, 4] axis-aligned boxes (x0, y0, x1, y1) of the quads once the page is turned level."""
    if not len(quads):
        return np.zeros((0, 4))
    pts = _rotate(np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2), angle)
    return np.concatenate([pts.min(axis=1), pts.max(axis=1)], axis=1)


def _gaps(lo: np.ndarray, hi: np.ndarray, min_gap: float) -> list:
    """Empty intervals (start, end) at least min_gap wide in the projection of intervals [lo, hi]."""
    order = np.argsort(lo, kind="stable")
    out, reach = [], hi[order[0]]
    for i in order[1:]:
        if lo[i] - reach >= min_gap and lo[i] > reach:
            out.append((reach, lo[i]))
        reach = max(reach, hi[i])
    return out


def _rows_align(a: np.ndarray, b: np.ndarray, h: float) -> bool:
    """Do most lines of the smaller side sit on the rows of the other (as in a table or a form)?"""
    if len(a) > len(b):
        a, b = b, a
    ca, cb = (a[:, 1] + a[:, 3]) / 2, (b[:, 1] + b[:, 3]) / 2
    hits = sum(bool(np.any(np.abs(cb - y) <= 0.2 * h)) for y in ca)
    return hits >= 0.5 * len(a)


def _column_cut(b: np.ndarray, idx: list, h: float):
    """x of the widest gutter splitting the region into two sides of at least two lines each; None when there is
    none. A gap counts as a gutter when it is no wider than half the median line width of either side (text
    columns), or when the lines on its two sides do not share rows (a side note or a sidebar); a wide gap between
    lines on shared rows is a table or a form, read row by row."""
    sub = b[idx]
    best, best_w = None, 0.0
    for g0, g1 in _gaps(sub[:, 0], sub[:, 2], max(h, 8.0)):
        left, right = sub[sub[:, 2] <= g0], sub[sub[:, 0] >= g1]
        if len(left) < 2 or len(right) < 2:
            continue
        narrowest = min(np.median(left[:, 2] - left[:, 0]), np.median(right[:, 2] - right[:, 0]))
        gutter = g1 - g0 <= 0.5 * narrowest or not _rows_align(left, right, h)
        if gutter and g1 - g0 > best_w:
            best, best_w = (g0 + g1) / 2, g1 - g0
    return best


def row_groups(b: np.ndarray, idx, h: float) -> list:
    """The lines idx of boxes b (x0, y0, x1, y1 rows) grouped into text rows, top to bottom, each left to right: a
    line joins the row whose running mean centre lies within half a line height h of its own centre."""
    cy = (b[:, 1] + b[:, 3]) / 2
    out, row, mean = [], [], None
    for i in sorted(idx, key=lambda i: cy[i]):
        if row and abs(cy[i] - mean) > h / 2:
            out.append(sorted(row, key=lambda j: b[j, 0]))
            row = []
        row.append(i)
        mean = float(np.mean(cy[row]))
    return out + [sorted(row, key=lambda j: b[j, 0])] if row else out


def _rows(b: np.ndarray, idx: list, h: float) -> list:
    """Row by row (centres within half a line height), each left to right: the reference's order, deskewed."""
    return [i for row in row_groups(b, idx, h) for i in row]


def _xy_cut(b: np.ndarray, idx: list, h: float, depth: int = 0) -> list:
    if len(idx) <= 1 or depth > MAX_DEPTH:
        return _rows(b, idx, h)
    x = _column_cut(b, idx, h)
    if x is not None:
        left = [i for i in idx if b[i, 2] <= x]
        right = [i for i in idx if b[i, 2] > x]
        return _xy_cut(b, left, h, depth + 1) + _xy_cut(b, right, h, depth + 1)
    sub = b[idx]
    gaps = _gaps(sub[:, 1], sub[:, 3], 0.0)
    if not gaps:
        return _rows(b, idx, h)
    widest = max(g1 - g0 for g0, g1 in gaps)
    cuts = [g0 for g0, g1 in gaps if g1 - g0 >= 0.8 * widest]   # equal gaps (evenly spaced lines) at once
    bands = [[] for _ in range(len(cuts) + 1)]
    for i in idx:
        bands[int(np.searchsorted(cuts, b[i, 1]))].append(i)
    return [i for band in bands for i in _xy_cut(b, band, h, depth + 1)]


def _blocks(b: np.ndarray, order: list, h: float) -> list:
    """Consecutive lines of the reading order grouped into blocks (lists of indexes)."""
    blocks, box = [], None
    for i in order:
        x0, y0, x1, y1 = b[i]
        if box is not None:
            bx0, by0, bx1, by1 = box
            lh, last_h = y1 - y0, b[blocks[-1][-1], 3] - b[blocks[-1][-1], 1]
            same_row = min(y1, b[blocks[-1][-1], 3]) - max(y0, b[blocks[-1][-1], 1]) >= 0.5 * min(lh, last_h)
            below = -0.3 * h <= y0 - by1 <= BLOCK_GAP * max(lh, last_h) and min(x1, bx1) > max(x0, bx0)
            similar = max(lh, last_h) <= 1.35 * min(lh, last_h)
            if similar and (same_row or below):
                blocks[-1].append(i)
                box = (min(bx0, x0), min(by0, y0), max(bx1, x1), max(by1, y1))
                continue
        blocks.append([i])
        box = (x0, y0, x1, y1)
    return blocks


def analyse(quads) -> tuple:
    """Reading order of line quads (upright page, pixels) and its blocks.

    Returns (order, blocks, block_quads): `order` lists the line indexes as read, `blocks` lists for each block
    the positions in `order` of its lines, `block_quads` each block's rectangle as a quad in the quads' frame
    (turned with the page's skew)."""
    n = len(quads)
    if n == 0:
        return [], [], []
    angle = skew_angle(quads)
    b = level_boxes(quads, angle)
    h = float(np.median(b[:, 3] - b[:, 1])) or 1.0
    order = _xy_cut(b, list(range(n)), h)
    groups = _blocks(b, order, h)
    position = {line: k for k, line in enumerate(order)}
    blocks, block_quads = [], []
    for g in groups:
        x0, y0 = b[g, 0].min(), b[g, 1].min()
        x1, y1 = b[g, 2].max(), b[g, 3].max()
        rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        block_quads.append(_rotate(rect, -angle))
        blocks.append([position[i] for i in g])
    return order, blocks, block_quads
