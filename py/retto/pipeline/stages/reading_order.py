"""Stage `layout` (layout.reading_order "blocks"): columns, titles and paragraphs from the kept lines' boxes
(layout.py) -> page.order (reading order) and page.blocks."""
from __future__ import annotations

import numpy as np

from retto.ops import layout


class ReadingOrder:
    name = "layout"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        kept = page.kept(self.p.config.global_.text_score)
        if page.mostly_turned(kept):
            return self._columns(page, kept)
        order, groups, block_quads = layout.analyse([page.lines.boxes[i] for i in kept])
        page.order = [kept[k] for k in order]
        page.blocks = [{"box": q, "lines": lines} for q, lines in zip(block_quads, groups)]
        return page

    @staticmethod
    def _columns(page, kept):
        """A page of mostly vertical lines (Chinese or Japanese set top to bottom) reads its columns from right
        to left, each top to bottom: one block."""
        centre = {i: np.asarray(page.lines.boxes[i], dtype=np.float64).mean(axis=0) for i in kept}
        page.order = sorted(kept, key=lambda i: (-centre[i][0], centre[i][1]))
        pts = np.concatenate([np.asarray(page.lines.boxes[i], dtype=np.float64) for i in kept])
        (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
        page.blocks = [{"box": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], "lines": list(range(len(kept)))}]
        return page
