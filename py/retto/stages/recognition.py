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
    replace(i, text, score) says so, if given). Word breaks the recogniser dropped are restored from the crop's
    ink where rec.word_gap is set (words.add_missing_spaces)."""
    cfg = p.config.rec
    labels = p.labels if role == "rec" else p.extra_labels[role]
    x = rec.preprocess(crops, idx, cfg)
    probs = await p.infer(role, x, page)
    for j, (i, (text, score)) in enumerate(zip(idx, rec.ctc_decode(probs, labels))):
        width = cls.content_width(crops[i], cfg.height, x.shape[3])
        steps = words.ctc_steps(probs[j])
        if cfg.word_gap > 0:
            crop_px_per_step = (x.shape[3] / probs.shape[1]) * crops[i].shape[1] / width
            steps = words.add_missing_spaces(steps, labels, crops[i], crop_px_per_step, cfg.word_gap)
            text = "".join(labels[c] for c, *_ in steps)
        if replace is None or replace(i, text, score):
            page.texts[i] = (text, score)
            page.spans[i] = words.word_spans(steps, labels, probs.shape[1], x.shape[3], width)
