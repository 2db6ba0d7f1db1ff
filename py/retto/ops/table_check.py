"""Does a page look like it holds a table? A cheap test on the read lines' boxes and texts (no model), so that
layout.tables "auto" runs the layout and table models only on pages that need them.

A table shows as rows of several short, separate lines whose edges line up with the rows above and below it:
- a *cell row*: at least MIN_CELLS lines side by side (their vertical centres within half a line height), each at
  most MAX_CELL_CHARS characters. Prose lines are long; a receipt's or a price list's rows have two entries;
  a multi-column page's rows hold one long line per column.
- two cell rows *line up* when at least MIN_CELLS lines of the lower one have a partner in the upper one whose
  left edge, right edge or centre lies within ALIGN line heights of its own (columns left-, right- or
  centre-aligned).
- a *table*: at least MIN_ROWS cell rows, each lined up with the cell row before it, with no more than MAX_GAP
  line heights of page between them.
"""
from __future__ import annotations

import numpy as np

from retto.ops.layout import row_groups

MIN_CELLS = 3
MAX_CELL_CHARS = 24
ALIGN = 0.6
MIN_ROWS = 4
MAX_GAP = 3.0


def rows_of(rects: list) -> list:
    """Lines grouped into text rows ([[index, ...], ...], top to bottom, each left to right), as the reading
    order groups them (layout.row_groups), with half the median line height as the tolerance."""
    if not rects:
        return []
    b = np.asarray(rects, dtype=np.float64)
    return row_groups(b, range(len(b)), float(np.median(b[:, 3] - b[:, 1])))


def _cells(row: list, rects: list, texts: list) -> list:
    return [i for i in row if 0 < len(texts[i].strip()) <= MAX_CELL_CHARS]


def _lined_up(upper: list, lower: list, rects: list, tol: float) -> bool:
    def anchors(i):
        x0, _, x1, _ = rects[i]
        return x0, x1, (x0 + x1) / 2
    hits = 0
    for i in lower:
        a = anchors(i)
        if any(min(abs(p - q) for p, q in zip(a, anchors(j))) <= tol for j in upper):
            hits += 1
    return hits >= MIN_CELLS


def looks_like_table(rects: list, texts: list) -> bool:
    """rects: each line's (x0, y0, x1, y1) on the upright page; texts: each line's text."""
    if len(rects) < MIN_CELLS * MIN_ROWS:
        return False
    h = float(np.median([r[3] - r[1] for r in rects]))
    run, last = 0, None   # cell rows lined up so far; the last cell row and its bottom
    for row in rows_of(rects):
        cells = _cells(row, rects, texts)
        if len(cells) < MIN_CELLS:
            continue
        top = min(rects[i][1] for i in cells)
        if last is not None and top - last[1] <= MAX_GAP * h and _lined_up(last[0], cells, rects, ALIGN * h):
            run += 1
        else:
            run = 1
        if run >= MIN_ROWS:
            return True
        last = (cells, max(rects[i][3] for i in cells))
    return False
