"""Stage `rec`: CTC recognition of every line crop -> page.texts (text, score) and page.spans (its words along
the crop, for word boxes)."""
from __future__ import annotations

from .. import cls, rec, words


class Recognition:
    name = "rec"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        crops = page.lines.crops
        page.texts = [("", 0.0)] * len(crops)
        page.spans = [[] for _ in crops]
        done = 0
        for idx in cls.batches_by_aspect(crops, self.p.config.rec.batch_size) if crops else []:
            await read_batch(self.p, page, crops, idx)
            done += len(idx)
            page.notify("rec", {"done": done, "total": len(crops),
                                "lines": [{"index": int(i), "text": page.texts[i][0],
                                           "score": round(page.texts[i][1], 5)} for i in idx]})
        return page


async def read_batch(p, page, crops: list, idx: list, replace=None, role: str = "rec") -> None:
    """Recognise crops[idx] as one batch with the `role` recogniser into page.texts and page.spans (only where
    replace(i, text, score) says so, if given)."""
    labels = p.labels if role == "rec" else p.extra_labels[role]
    x = rec.preprocess(crops, idx, p.config.rec)
    probs = await p.infer(role, x, page)
    for j, (i, line) in enumerate(zip(idx, rec.ctc_decode(probs, labels))):
        if replace is None or replace(i, *line):
            page.texts[i] = line
            width = cls.content_width(crops[i], p.config.rec.height, x.shape[3])
            page.spans[i] = words.line_spans(probs[j], labels, x.shape[3], width)
