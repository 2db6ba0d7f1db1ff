"""Stage `layout` (layout.reading_order "blocks"): columns, titles and paragraphs from the kept lines' boxes
(layout.py) -> page.order (reading order) and page.blocks."""
from __future__ import annotations

from .. import layout


class ReadingOrder:
    name = "layout"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        kept = page.kept(self.p.config.global_.text_score)
        order, groups, block_quads = layout.analyse([page.lines.boxes[i] for i in kept])
        page.order = [kept[k] for k in order]
        page.blocks = [{"box": q, "lines": lines} for q, lines in zip(block_quads, groups)]
        return page
