"""Stage `rec` for a set whose lines are read whole (the `line_rec` role, Tesseract's LSTM): each straightened
crop goes to the recogniser as a grey image, in single-line mode and, for a weak reading, raw-line mode too
(RAW_BELOW) -> page.texts, page.spans (its words along the crop, for word boxes) and page.directions (ltr /
rtl). The CTC stages that re-read lines (flip check, re-reading, stacks, page turn) need the CTC recogniser's
scores, so stages.build leaves them out for such a set.

The 0/180 line classifier was trained on Chinese and Latin lines and turns some lines of other scripts upside
down (Hebrew, Hangul, Bengali in the script test pages). So a line it turned, or one read with little
confidence, is read the other way up too, and the reading with the higher confidence is kept."""
from __future__ import annotations

import numpy as np

from retto.models.sets import LINE_ROLE
from retto.ops import line_text

RECHECK_BELOW = 0.75   # a line read with less confidence than this is also read turned 180 degrees
# A line read in single-line mode ("line", PSM 7) with no word or a confidence below this is read in raw-line mode
# ("raw", PSM 13) too, and the more confident reading kept. Why: the two Tesseract builds (5.5.4 natively, the
# wasm 5.1.0 in the browser) disagree on weak PSM-7 readings (a clean upright Bengali line: nothing natively, 0.38
# in the browser, below the digits it reads from the line upside down), and raw-line mode reads those lines well
# in both (0.92). Not raw first: it keeps stray marks at the line's ends.
RAW_BELOW = 0.75


class LineReading:
    name = "rec"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        found = page.lines
        crops = found.crops
        page.timings["infer"].pop("rec", None)   # no CTC rec model ran: its time is line_rec's
        page.texts = [("", 0.0)] * len(crops)
        page.spans = [[] for _ in crops]
        page.letters = [[] for _ in crops]
        page.directions = ["ltr"] * len(crops)
        for i, crop in enumerate(crops):
            text, score, spans, direction = await self.read(crop, page)
            if found.angles[i] == 180 or score < RECHECK_BELOW:
                turned = np.ascontiguousarray(np.rot90(crop, 2))
                other = await self.read(turned, page)
                if other[1] > score:
                    (text, score, spans, direction), crops[i] = other, turned
                    found.angles[i] = 0 if found.angles[i] == 180 else 180
            page.texts[i], page.spans[i], page.directions[i] = (text, score), spans, direction
            page.notify("rec", {"done": i + 1, "total": len(crops),
                                "lines": [{"index": i, "text": text, "score": round(score, 5)}]})
        return page

    async def read(self, crop: np.ndarray, page) -> tuple:
        """(text, score, spans, direction) of one crop as it stands."""
        if crop.size == 0:   # a degenerate box: nothing to read, and no reason to fail the page
            return "", 0.0, [], "ltr"
        image, scale, pad = line_text.prepare(crop)
        text, words, score = await self.read_mode(image, "line", page)
        if score < RAW_BELOW:   # no word, or a weak reading: raw-line mode too (RAW_BELOW)
            raw = await self.read_mode(image, "raw", page)
            if raw[2] > score:
                text, words, score = raw
        direction = line_text.direction(text)
        return text, score, line_text.spans(words, crop.shape[1], scale, pad, rtl=direction == "rtl"), direction

    async def read_mode(self, image: np.ndarray, mode: str, page) -> tuple:
        """(text, words in logical order, score) of one reading of the prepared image in `mode`."""
        out = await self.p.read_line(LINE_ROLE, image, mode, page)
        raw_text = str(out.get("text") or "")
        words = line_text.logical_words(raw_text, list(out.get("words") or []))
        return line_text.clean(raw_text), words, line_text.line_score(words)
