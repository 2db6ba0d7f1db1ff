"""Stage `rec`: CTC recognition of every line crop -> page.texts (text, score), page.spans (its words along
the crop, for word boxes) and page.letters (how sure the recogniser was of each letter and digit, the re-reading
stage's evidence)."""
from __future__ import annotations

import dataclasses

from retto.ops import cls

from retto.ops import rec

from retto.ops import words


class Recognition:
    name = "rec"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        crops = page.lines.crops
        page.texts = [("", 0.0)] * len(crops)
        page.spans = [[] for _ in crops]
        page.letters = [[] for _ in crops]
        done = 0
        for idx in cls.batches_by_aspect(crops, self.p.config.rec.batch_size) if crops else []:
            await read_batch(self.p, page, crops, idx)
            done += len(idx)
            page.notify("rec", {"done": done, "total": len(crops),
                                "lines": [{"index": int(i), "text": page.texts[i][0],
                                           "score": round(page.texts[i][1], 5)} for i in idx]})
        return page


def letter_scores(steps: list, labels: list) -> list:
    """The probability of each letter or digit (any script) a line's CTC steps kept, in reading order: spaces and
    punctuation left out, since a recogniser is often unsure of a word break or a quote mark it still reads right
    (stages/reread.py)."""
    return [p for c, _t0, _t1, p in steps if labels[c].isalnum()]


async def read_crops(p, page, crops: list, idx: list, role: str = "rec") -> list:
    """Recognise crops[idx] as one batch with the `role` recogniser: [(text, score, spans, letters)] in idx order,
    spans being the words along each crop (words.word_spans), letters its letter_scores. Word breaks the
    recogniser dropped are restored from the crop's ink where rec.word_gap is set (words.add_missing_spaces), and
    words' ends moved onto their ink where rec.fit_words_to_ink is (words.fit_to_ink)."""
    cfg = p.config.rec
    labels = p.labels if role == "rec" else p.extra_labels[role]
    if role == "reread" and cfg.reread_min_width:
        cfg = dataclasses.replace(cfg, min_width=cfg.reread_min_width)
    x = rec.preprocess(crops, idx, cfg)
    best_idx, best_conf = await p.infer_best(role, x, page, labels)   # shared by the line and word decoders
    n_steps = best_idx.shape[1]
    out = []
    for j, (i, (text, score)) in enumerate(zip(idx, rec.decode_best(best_idx, best_conf, labels))):
        width = cls.content_width(crops[i], cfg.height, x.shape[3])
        steps = words.ctc_steps(None, (best_idx[j], best_conf[j]))
        ink = words.ink_mask(crops[i]) if cfg.fit_words_to_ink else None   # found once for both uses
        if cfg.word_gap > 0:
            crop_px_per_step = (x.shape[3] / n_steps) * crops[i].shape[1] / width
            steps = words.add_missing_spaces(steps, labels, crops[i], crop_px_per_step, cfg.word_gap, ink)
            text = "".join(labels[c] for c, *_ in steps)
        spans = words.word_spans(steps, labels, n_steps, x.shape[3], width)
        if ink is not None:
            spans = words.fit_to_ink(spans, crops[i], ink)
        out.append((text, score, spans, letter_scores(steps, labels)))
    return out


async def read_batch(p, page, crops: list, idx: list) -> None:
    """Recognise crops[idx] as one batch into page.texts, page.spans and page.letters."""
    for i, (text, score, spans, letters) in zip(idx, await read_crops(p, page, crops, idx)):
        page.texts[i] = (text, score)
        page.spans[i] = spans
        page.letters[i] = letters


async def read_scores(p, page, crops: list) -> list:
    """The `rec` recogniser's score for each crop (batched by aspect; texts and word spans not needed): the
    evidence the orientation and stack stages compare."""
    out = [0.0] * len(crops)
    for idx in cls.batches_by_aspect(crops, p.config.rec.batch_size) if crops else []:
        best = await p.infer_best("rec", rec.preprocess(crops, idx, p.config.rec), page, p.labels)
        for i, (_text, score) in zip(idx, rec.decode_best(*best, p.labels)):
            out[i] = score
    return out
