"""Stage `stacks` (layout.split_stacks): a tall box on an upright page may be a stack of short horizontal entries
("1", "2", "3" ... or "C", "B", "D" ... down a table column) that the detector merged into one vertical line.
Read as one turned line it comes out as "cBABcAAAB..." or as garbage. Each tall box whose ink splits into rows
of similar height is read both ways, as one turned line and row by row, and the rows replace it when they read
with more confidence. A true vertical line (Chinese or Japanese set top to bottom) reads as well or better as
one line, so it stays."""
from __future__ import annotations

import numpy as np

from retto.ops.crop import crop_line, is_turned
from retto.pipeline.page import Lines
from retto.ops.words import ink_mask
from retto.pipeline.stages.detection import to_source
from retto.pipeline.stages.recognition import read_scores

MIN_ROWS = 2          # fewer rows than this is not a stack
ROW_SPREAD = 2.0      # every row's height within this factor of the median row height
PAD = 0.3             # rows get this times their height around their ink, like the detector's margin
MARGIN = 0.02         # the rows must read this much better (mean score) than the one line
SAMPLE = 6            # rows read to decide (one rec batch); recognition then reads every row of a split stack


def stack_rows(work: np.ndarray, quad) -> list:
    """Quads (work pixels) of the rows of ink inside the axis-aligned box of `quad`, or [] when it is not a
    stack of similar rows."""
    q = np.asarray(quad, dtype=np.float64)
    h, w = work.shape[:2]
    x0, y0 = max(int(np.floor(q[:, 0].min())), 0), max(int(np.floor(q[:, 1].min())), 0)
    x1, y1 = min(int(np.ceil(q[:, 0].max())), w), min(int(np.ceil(q[:, 1].max())), h)
    if x1 - x0 < 2 or y1 - y0 < 4:
        return []
    ink = ink_mask(work[y0:y1, x0:x1])
    if ink is None:
        return []
    inked = ink.sum(axis=1) >= max(1, int(0.02 * (x1 - x0)))   # a speck of noise is not a row
    edges = np.flatnonzero(np.diff(np.concatenate(([0], inked.astype(np.int8), [0]))))
    bands = [(a, b) for a, b in zip(edges[::2], edges[1::2]) if b - a >= 3]
    if len(bands) < MIN_ROWS:
        return []
    heights = np.array([b - a for a, b in bands], dtype=np.float64)
    mid = float(np.median(heights))
    if heights.max() > ROW_SPREAD * mid or heights.min() < mid / ROW_SPREAD:
        return []
    rows = []
    for a, b in bands:
        cols = np.flatnonzero(ink[a:b].any(axis=0))
        pad = PAD * (b - a)
        left, right = x0 + cols[0] - pad, x0 + cols[-1] + 1 + pad
        top, bottom = y0 + a - pad, y0 + b + pad
        left, top = max(left, 0.0), max(top, 0.0)
        right, bottom = min(right, float(w)), min(bottom, float(h))
        rows.append(np.array([[left, top], [right, top], [right, bottom], [left, bottom]]))
    return rows


class SplitStacks:
    name = "stacks"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        found = page.lines
        if page.page_angle or not found.quads:
            return page
        stacks = {}
        for i, q in enumerate(found.quads):
            if is_turned(q):
                rows = stack_rows(page.work, q)
                if rows:
                    stacks[i] = rows
        if not stacks:
            return page
        line_scores = await read_scores(self.p, page, [found.crops[i] for i in stacks])
        row_crops = {i: [crop_line(page.work, r) for r in rows] for i, rows in stacks.items()}
        # An even sample of each stack's rows, spread from top to bottom.
        picks = {i: sorted({int(round(j)) for j in np.linspace(0, len(rows) - 1, min(SAMPLE, len(rows)))})
                 for i, rows in stacks.items()}
        sample = [row_crops[i][j] for i in stacks for j in picks[i]]
        sample_scores = await read_scores(self.p, page, sample)
        split, k = {}, 0
        for i, line_score in zip(stacks, line_scores):
            mine = sample_scores[k:k + len(picks[i])]
            k += len(picks[i])
            if float(np.mean(mine)) > line_score + MARGIN:
                split[i] = (stacks[i], row_crops[i])
        if not split:
            return page
        h, w = page.upright.shape[:2]
        quads, boxes, crops, angles = [], [], [], []
        for i, q in enumerate(found.quads):
            if i in split:
                for rq, rc in zip(*split[i]):
                    quads.append(rq)
                    boxes.append(to_source(rq, *page.frame, w, h))
                    crops.append(rc)
                    angles.append(0)
            else:
                quads.append(q)
                boxes.append(found.boxes[i])
                crops.append(found.crops[i])
                angles.append(found.angles[i])
        page.lines = Lines(quads, boxes, crops, angles)
        page.notify("stacks", {"split": len(split), "rows": sum(len(r) for r, _ in split.values())})
        return page
