"""Stage `rec` for a set whose lines are read whole (the `line_rec` role, Tesseract's LSTM in single-line mode):
each straightened crop goes to the recogniser as a grey image -> page.texts, page.spans (its words along the
crop, for word boxes) and page.directions (ltr / rtl). The CTC stages that re-read lines (flip check, re-reading,
stacks, page turn) need the CTC recogniser's scores, so stages.build leaves them out for such a set."""
from __future__ import annotations

from retto.models.sets import LINE_ROLE
from retto.ops import line_text


class LineReading:
    name = "rec"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        crops = page.lines.crops
        page.texts = [("", 0.0)] * len(crops)
        page.spans = [[] for _ in crops]
        page.letters = [[] for _ in crops]
        page.directions = ["ltr"] * len(crops)
        for i, crop in enumerate(crops):
            image, scale, pad = line_text.prepare(crop)
            out = await self.p.read_line(LINE_ROLE, image, page)
            words = list(out.get("words") or [])
            text = str(out.get("text") or "")
            page.texts[i] = (text, line_text.line_score(words))
            page.spans[i] = line_text.spans(words, crop.shape[1], scale, pad)
            page.directions[i] = line_text.direction(text)
            page.notify("rec", {"done": i + 1, "total": len(crops),
                                "lines": [{"index": i, "text": text, "score": round(page.texts[i][1], 5)}]})
        return page
