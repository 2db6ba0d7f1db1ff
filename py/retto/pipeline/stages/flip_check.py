"""Stage `flip_check` (cls.verify): the lines the orientation classifier turned 180 degrees are read once more as
they were found, and whichever reading scores higher wins. The classifier alone flips some upright lines of the
newer detectors' crops, and a flipped line reads as garbage with no error (seen on German serif text with
PP-OCRv6 det)."""
from __future__ import annotations

import numpy as np

from retto.ops import cls
from retto.pipeline.stages.recognition import read_crops


class FlipCheck:
    name = "flip_check"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        crops, angles = page.lines.crops, page.lines.angles
        if not any(a == 180 for a in angles):
            return page
        # The crops as found (the classifier's turn undone) stand in a scratch list, and every batch of the main
        # pass that holds one is read again as it was (a 180-degree turn keeps a crop's shape, so the batches are
        # the same): a line's score depends on its batch (padding width, and the v6 recogniser mixes the whole
        # line), so the upright reading scores exactly as it would have had the classifier not turned it. A line
        # whose reading that way scores higher takes it, and its angle goes back to 0.
        scratch = [np.ascontiguousarray(np.rot90(c, 2)) if a == 180 else c for c, a in zip(crops, angles)]

        for batch in cls.batches_by_aspect(crops, self.p.config.rec.batch_size):
            if not any(angles[i] == 180 for i in batch):
                continue
            for i, (text, score, spans, letters) in zip(batch, await read_crops(self.p, page, scratch, batch)):
                if angles[i] == 180 and score > page.texts[i][1]:
                    angles[i] = 0
                    crops[i] = scratch[i]   # later stages (re-reading) see the line the way it now reads
                    page.texts[i], page.spans[i], page.letters[i] = (text, score), spans, letters
        return page
