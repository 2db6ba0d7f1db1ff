"""Stage `orientation` (layout.page_orientation "auto"): find a page turned 90/180/270 degrees
(page_orientation.py: the orientation model, when the set has one, and the page's own lines must agree), turn it
upright and run det and cls once more on it. Recognition runs once, on the final lines; boxes are always
reported in the image as given. The evidence is kept in page.page_angle_confidence. A page of level lines that the
line classifier reads upright (page_orientation.sure_upright) is upright: the model is not run."""
from __future__ import annotations

import numpy as np

from retto.ops import page_orientation
from retto.pipeline.infer import run_stage
from retto.pipeline.stages.recognition import read_scores


class PageTurn:
    name = "orientation"

    def __init__(self, pipeline, find_lines: list):
        self.p = pipeline
        self.find_lines = find_lines   # the det and cls stages, run again on the turned page

    async def run(self, page):
        found = page.lines
        if page.strip or not found.quads:
            return page
        if self.p.config.cls.enabled:
            sure = page_orientation.sure_upright(found.quads, found.angles)
            if sure is not None:
                # Level lines, nearly all read upright: no model call (nor, in the browser, its download).
                page.page_angle_confidence = sure
                page.notify("orientation", {"page_angle": 0, "confidence": sure})
                return page
        model = None
        if self.p.has("orient"):
            probs = await self.p.infer("orient", page_orientation.model_input(page.image), page)
            model = page_orientation.model_angle(probs[0])
        # The lines are only consulted when a turn is possible: without a model, or when it sees one.
        lines_angle, turned_score = (await self._page_angle(page, force=model is not None)
                                     if model is None or model[0] else (0, None))
        angle, page.page_angle_confidence = page_orientation.combine(model, lines_angle)
        if angle:
            as_given = (page.lines, page.work, page.upright, page.warnings[:])
            upright_score = await self._horizontal_score(page) if angle in (90, 270) else None
            if upright_score is not None and turned_score is not None and upright_score >= turned_score:
                # The page's level lines already read at least as well as its tall ones turned upright (the
                # same evidence as below, before paying for det on the turned page): keep it as given.
                page.page_angle_confidence = model[2] if model else None
                page.notify("orientation", {"page_angle": 0, "confidence": page.page_angle_confidence})
                return page
            page.page_angle = angle
            page.upright = page_orientation.turn_upright(page.image, angle)
            for stage in self.find_lines:
                page = await run_stage(stage, page)
            if upright_score is not None and upright_score >= await self._horizontal_score(page):
                # Read both ways: the page's own level lines read at least as well as the turned page's, so the
                # "turned" text was something else (columns of short entries merged into tall boxes): keep it.
                page.lines, page.work, page.upright, page.warnings = as_given
                page.page_angle, angle = 0, 0
                page.page_angle_confidence = model[2] if model else None
        page.notify("orientation", {"page_angle": angle, "confidence": page.page_angle_confidence})
        return page

    async def _horizontal_score(self, page) -> float | None:
        """Mean recognition score of a sample of the longest level lines of the upright image, read the way the
        line classifier left them; None when it has none."""
        found = page.lines
        sample = page_orientation.sample_lines(found.quads, "horizontal")
        if not sample:
            return None
        return float(np.mean(await read_scores(self.p, page, [found.crops[i] for i in sample])))

    async def _page_angle(self, page, force: bool = False) -> tuple:
        """(the page's clockwise turn from its lines, the sample's mean score read the better way or None): the
        axis from the boxes; the half turn from reading a sample of lines as found and turned 180 degrees,
        skipped on a horizontal page the classifier finds upright (unless `force`: the model saw a turn, so it is
        checked)."""
        found = page.lines
        axis = page_orientation.text_axis(found.quads)
        if axis is None:
            return 0, None
        if (axis == "horizontal" and self.p.config.cls.enabled and not force
                and page_orientation.flip_share(found.quads, found.angles) < page_orientation.FLIP_SHARE):
            return 0, None
        sample = page_orientation.sample_lines(found.quads, axis)
        if not sample:
            return 0, None
        as_found = [found.crops[i] if found.angles[i] == 0 else np.ascontiguousarray(np.rot90(found.crops[i], 2))
                    for i in sample]
        pool = as_found + [np.ascontiguousarray(np.rot90(c, 2)) for c in as_found]
        scores = await read_scores(self.p, page, pool)
        k = len(sample)
        as_found_score, turned_score = float(np.mean(scores[:k])), float(np.mean(scores[k:]))
        return (page_orientation.decide(axis, as_found_score, turned_score),
                max(as_found_score, turned_score) if axis == "vertical" else None)
