"""Stage `cls`: cut each line out of the working image and turn the ones the 0/180 classifier finds upside down
-> page.lines.crops and .angles."""
from __future__ import annotations

import numpy as np

from retto.ops import cls
from retto.ops.crop import crop_line


class LineOrientation:
    name = "cls"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        found, cfg = page.lines, self.p.config.cls
        found.crops = [crop_line(page.work, q) for q in found.quads]
        found.angles = [0] * len(found.crops)
        if cfg.enabled and found.crops:
            for n, idx in enumerate(cls.batches_by_aspect(found.crops, cfg.batch_size)):
                probs = await self.p.infer("cls", cls.preprocess(found.crops, idx, cfg), page)
                for i, (_angle, _score, rotate) in zip(idx, cls.postprocess(probs, cfg)):
                    if rotate:
                        found.crops[i] = np.ascontiguousarray(np.rot90(found.crops[i], 2))
                        found.angles[i] = 180
                page.notify("cls", {"done": min((n + 1) * cfg.batch_size, len(found.crops)),
                                    "total": len(found.crops)})
        return page
