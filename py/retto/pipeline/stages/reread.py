"""Stage `reread` (rec.reread_below > 0 and a set with a "reread" model): the lines the first recogniser read
with little confidence are read again by the set's larger recogniser, which takes them over.

A cascade: the small recogniser reads every line fast; the larger one, several times slower per line, reads only
the doubtful ones. A line is doubtful when
- its score is below rec.reread_below, or
- its weakest word's score is below rec.reread_word_below (one bad word in a long line hardly moves the line's
  mean), or
- its score is below rec.reread_letters_line_below and at least rec.reread_letters of its letters and digits were
  read with a probability below rec.reread_letter_below.
The last rule is the default set's instead of the word rule (docs/measurements/default-set-choice.md): the lines the
larger recogniser reads better are the long lines of noisy scans, which the first one reads confidently (0.95 to
0.97) but with several unsure letters; a clean line's unsure characters are its spaces and quote marks, which the
larger one reads no better, and a short table cell with one weak word costs a whole 320 px batch.

With rec.reread_ink_margin the larger recogniser reads each line cut to its ink rows and a margin (crop.ink_band).
The detector's box leaves a short line of small print as much blank above and below as ink, so the 48 px input
shows its letters small, and the larger recogniser then drops the narrow space of a code such as "23 C"; cut to
its ink it reads it. Such crops differ more in aspect, and in a batch the narrower ones get long padding, on which
the larger recogniser repeats a line's last characters ("2024" read "202424"): rec.reread_batch_size 1 reads each
line at its own width (docs/measurements/accuracy.md, 2026-12-07)."""
from __future__ import annotations

import re

from retto.ops import cls
from retto.ops import crop
from retto.pipeline.stages.recognition import read_crops

RESURRECT = 0.9   # the re-reading score a line the first pass dropped needs to be kept


# A token that runs a digit into a Latin letter or a Latin letter into a digit ("13A", "B12", "32B-33C"). (Not
# Han or kana: "2024年" is how dates are written, and the recogniser reads them right.)
JOINED_CODE = re.compile(r"[0-9][A-Za-z\u00c0-\u024f]|[A-Za-z\u00c0-\u024f][0-9]")


def doubtful(texts: list, spans: list, letters: list, cfg) -> list:
    """Indexes of the lines to read again (cfg: RecConfig's reread_* thresholds; letters: page.letters)."""
    out = []
    for i, ((text, score), words, sure) in enumerate(zip(texts, spans, letters)):
        weakest = min((w[3] for w in words), default=score)
        unsure = sum(p < cfg.reread_letter_below for p in sure)
        if (score < cfg.reread_below or weakest < cfg.reread_word_below
                or (score < cfg.reread_letters_line_below and unsure >= cfg.reread_letters)
                or (cfg.reread_joined_codes and JOINED_CODE.search(text))):
            out.append(i)
    return out


class Reread:
    name = "reread"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        cfg = self.p.config.rec
        idx = doubtful(page.texts, page.spans, page.letters, cfg)
        page.reread = []
        if not idx:
            return page
        crops = page.lines.crops
        if cfg.reread_ink_margin > 0:
            crops = list(crops)
            for i in idx:
                crops[i] = crop.ink_band(crops[i], cfg.reread_ink_margin)
        chosen = [crops[i] for i in idx]
        done = 0

        keep = self.p.config.global_.text_score

        for batch in cls.batches_by_aspect(chosen, cfg.reread_batch_size or cfg.batch_size):
            lines = [idx[k] for k in batch]
            for i, (text, score, spans, _letters) in zip(lines, await read_crops(self.p, page, crops, lines,
                                                                                role="reread")):
                # A line the first recogniser scored as no text (below global.text_score: a speck the detector
                # boxed) is only brought back when the larger one is sure of it.
                if text and (page.texts[i][1] >= keep or score >= RESURRECT):
                    page.texts[i], page.spans[i] = (text, score), spans
                    page.reread.append(i)
            done += len(batch)
            page.notify("reread", {"done": done, "total": len(idx)})
        page.reread.sort()
        return page
