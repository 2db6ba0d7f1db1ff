"""Stage `marks` (a set whose lines are read whole, Tesseract's `line_rec`): a detected box lying mostly inside a
much thicker line's box is a mark of that line that the detector boxed on its own, such as a Kannada vowel sign
hanging below its letter. The line's crop holds it, and the line recogniser reads a line whole, marks included;
read again on its own it is a stray line of a letter or two that the page does not have. So it is dropped."""
from __future__ import annotations

import numpy as np

from retto.ops.geometry import overlap_area, polygon_area_perimeter
from retto.pipeline.page import Lines

INSIDE = 0.6     # share of the small box's area within the line's box
THICKER = 2.0    # the line's box at least this many times as thick as the small box


def thickness(quad: np.ndarray) -> float:
    """The quad's shorter side (its line height for a line of text, whichever way the line runs)."""
    q = np.asarray(quad, dtype=np.float64)
    return float(min(np.hypot(*(q[1] - q[0])), np.hypot(*(q[2] - q[1]))))


def nested(quads: list) -> list:
    """Indexes of the quads that are marks of another, thicker line (see above). Only pairs whose bounding boxes
    meet are clipped, and each box is checked against all others in one vector step, so a page of many lines
    stays cheap in time and memory."""
    if len(quads) < 2:
        return []
    q = np.asarray(quads, dtype=np.float64).reshape(len(quads), 4, 2)
    sizes = np.array([thickness(x) for x in q])
    lo, hi = q.min(axis=1), q.max(axis=1)
    out = []
    for i in np.flatnonzero(THICKER * sizes <= sizes.max()):
        holders = np.flatnonzero((sizes >= THICKER * sizes[i]) & (lo < hi[i]).all(axis=1) & (lo[i] < hi).all(axis=1))
        area = polygon_area_perimeter(q[i])[0]
        if area > 0 and any(overlap_area(q[i], q[j]) >= INSIDE * area for j in holders):
            out.append(int(i))
    return out


class NestedMarks:
    name = "marks"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        found = page.lines
        drop = set(nested(found.quads))
        if drop:
            keep = [i for i in range(len(found.quads)) if i not in drop]
            page.lines = Lines([found.quads[i] for i in keep], [found.boxes[i] for i in keep])
        return page
