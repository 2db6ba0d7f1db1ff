#!/usr/bin/env python3
"""Analysis (not a test): which lines the default set's re-reading stage should read again, scored offline.

  .venv/bin/python scripts/bench/reread_trigger_analysis.py collect [--pages hard] [--data FILE] [--rec JSON]
  .venv/bin/python scripts/bench/reread_trigger_analysis.py score [--grid] [--data FILE] [--rec JSON]

--rec: RecConfig values other than the triggers' (e.g. '{"min_width": 96, "margin": 16}') for both commands: the
pages are read with them and the cost counts the batches' widths by them.

`collect` reads every labelled page (and the two real scans) once with the default set (under the old trigger,
TODAY) and, at the re-reading stage, records for every line both readings: the first recogniser's (PP-OCRv6 tiny,
as the stage finds it) and the larger one's (PP-OCRv6 small, every line read in batches by aspect like the stage
does), the line's result box and word boxes for each, and what a trigger may look at: line score, word scores,
the probability of each letter and digit (page.letters), the crop's size, the text. The page then goes on with
the old trigger's re-reading, and that result is kept too, so the offline scoring can be checked against the
real pipeline (it matches to a word: a line's reading depends a little on the other lines in its batch).

`score` then scores any trigger (a function of a line's record and its page's features) without running a
model: each page's lines are put together from the two readings (a chosen line takes the larger recogniser's
reading, by the stage's own rule for lines the first pass dropped) and scored like scripts/bench/models.py
(words right, CER, WER; tests/py/ocr_metrics.py). Cost: the summed padded width of the re-read batches
(cls.batches_by_aspect, rec.batch_width: batches of 6 by aspect, at least 320 px wide), which is what the larger
recogniser's time is linear in, and the area (each batch's width times its lines); both relative to the old
trigger (line below 0.95 or a word below 0.85). --grid adds a grid of the new rule's thresholds and
leave-one-page-out on the hard pages. Timing: collect about 2.5 min, score 1 min, score --grid 2 min.
"""
from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "bench"))
from models import load_pages, scan_bytes, score  # noqa: E402
from retto.ops import cls  # noqa: E402
from retto.ops import rec
from retto.config import Config, RecConfig  # noqa: E402
from retto.pipeline.stages.reread import RESURRECT, doubtful  # noqa: E402

DATA = ROOT / "test-artefacts" / "reread_lines.json.gz"
REC = RecConfig()                               # batch size, height and width floor, as the stage uses them
TEXT_SCORE = Config().global_.text_score         # checked at collect
TODAY = {"rec": {"reread_below": 0.95, "reread_word_below": 0.85, "reread_letter_below": 0}}   # before this study


# ------------------------------------------------------------------------------------------------- collect

def _line_dict(page, i, text, score, spans):
    from retto.ops import words
    from retto.ops.crop import is_turned
    box = page.lines.boxes[i]
    turned, flipped = is_turned(page.lines.quads[i]), page.lines.angles[i] == 180
    return {"text": text, "score": float(score), "box": page.to_source(box),
            "words": [{"text": t, "score": float(sc),
                       "box": page.to_source(words.span_quad(box, u0, u1, turned, flipped))}
                      for t, u0, u1, sc in spans]}


def collect(args) -> None:
    from retto.native.ort_worker import OrtWorker
    from retto.pipeline.stages import recognition, reread

    async def read_all(p, page, role):
        """Every line read by `role` in batches by aspect (as the stages do): [(text, score, spans, letters)]."""
        crops = page.lines.crops
        out = [None] * len(crops)
        for idx in cls.batches_by_aspect(crops, p.config.rec.batch_size):
            for i, got in zip(idx, await recognition.read_crops(p, page, crops, idx, role=role)):
                out[i] = got
        return out

    record = {}

    class Recorder(reread.Reread):
        async def run(self, page):
            p = self.p
            assert p.config.global_.text_score == TEXT_SCORE
            small = await read_all(p, page, "reread") if page.lines.crops else []
            lines = []
            for i, crop in enumerate(page.lines.crops):
                t_text, t_score = page.texts[i]
                lines.append({
                    "h": int(crop.shape[0]), "w": int(crop.shape[1]),
                    "tiny": _line_dict(page, i, t_text, t_score, page.spans[i]),
                    "small": _line_dict(page, i, small[i][0], small[i][1], small[i][2]),
                    "tiny_letters": list(page.letters[i]), "small_letters": small[i][3]})
            record["lines"] = lines
            page = await super().run(page)
            record["reread"] = list(page.reread)
            return page

    # the pages go on with today's trigger, so their results check the offline scoring of it
    config = {**TODAY, "rec": {**TODAY["rec"], **args.rec}}
    session = OrtWorker(models="ppocr-v6-tiny", threads=2).session(config)
    k = next(j for j, s in enumerate(session.stages) if s.name == "reread")
    session.stages[k] = Recorder(session.pipeline)
    out = []
    for page in load_pages(args.pages.split(",") if args.pages else None):
        record.clear()
        result = session.run(scan_bytes(page["path"])).to_dict()
        lines = record.get("lines", [])
        print(f"  {page['name']:<26} {len(lines):4d} lines, {len(record.get('reread', []))} re-read", file=sys.stderr)
        out.append({"name": page["name"], "lines": lines, "reread": record.get("reread", []),
                    "result": [{"text": ln["text"], "box": ln["box"], "words": ln["words"]}
                               for ln in result["lines"]]})
    args.data.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.data, "wt", encoding="utf-8") as f:
        json.dump(out, f)
    print(f"wrote {args.data}", file=sys.stderr)


# ------------------------------------------------------------------------------------------------- score

def load(path: Path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    pages = {p["name"]: p for p in load_pages()}
    return [(pages[d["name"]], d) for d in data]


def batches_cost(lines: list, chosen: list) -> tuple:
    """Summed padded width of the re-read batches (cls.batches_by_aspect + rec.batch_width, on empty arrays of
    the crops' shapes), and the same summed as width x lines (a batch of 2 lines costs less than one of 6 of the
    same width)."""
    shapes = [np.empty((lines[i]["h"], lines[i]["w"], 0), np.uint8) for i in chosen]
    width = area = 0
    for batch in cls.batches_by_aspect(shapes, REC.batch_size) if shapes else []:
        w = rec.batch_width(shapes, batch, REC)
        width, area = width + w, area + w * len(batch)
    return width, area


def mixed(lines: list, chosen: set) -> list:
    """The result lines of a page whose `chosen` lines were re-read (stages/reread.py's rule), in index order."""
    out = []
    for i, ln in enumerate(lines):
        t, s = ln["tiny"], ln["small"]
        take = i in chosen and s["text"] and (t["score"] >= TEXT_SCORE or s["score"] >= RESURRECT)
        ln_out = s if take else t
        if ln_out["score"] >= TEXT_SCORE:
            out.append(ln_out)
    return out


class Scorer:
    def __init__(self, data):
        self.data = data
        self.cache = {}

    def page_score(self, k: int, chosen: frozenset) -> dict:
        key = (k, chosen)
        if key not in self.cache:
            page, d = self.data[k]
            self.cache[key] = score(page, mixed(d["lines"], chosen))
        return self.cache[key]

    def run(self, trigger, names=None) -> dict:
        """Words right, CER, WER and cost of a trigger over the pages (all, or those named)."""
        per = {}
        for k, (page, d) in enumerate(self.data):
            if names is not None and page["name"] not in names:
                continue
            feats = page_features(d["lines"])
            chosen = [i for i, ln in enumerate(d["lines"]) if trigger(ln, feats)]
            differ = frozenset(i for i in chosen if d["lines"][i]["tiny"] != d["lines"][i]["small"])
            width, area = batches_cost(d["lines"], chosen)
            per[page["name"]] = dict(self.page_score(k, differ), n=len(chosen), cost=width, area=area)
        boxed = [x for x in per.values() if "gt_words" in x]
        chars = sum(x["chars"] for x in per.values())
        words_ = sum(x["words"] for x in per.values())
        return {"right": sum(x["words_right"] for x in boxed), "gt_words": sum(x["gt_words"] for x in boxed),
                "cer": sum(x["cer"] * x["chars"] for x in per.values()) / chars,
                "wer": sum(x["wer"] * x["words"] for x in per.values()) / words_,
                "n": sum(x["n"] for x in per.values()), "cost": sum(x["cost"] for x in per.values()),
                "area": sum(x["area"] for x in per.values()), "per": per}


# ------------------------------------------------------------------------------------------------- triggers

def page_features(lines: list) -> dict:
    """What a trigger may know of the page: its median line score and number of kept lines (none of the rules
    tried that used them, e.g. a higher threshold on pages with many doubtful lines, did better)."""
    scores = [ln["tiny"]["score"] for ln in lines if ln["tiny"]["score"] >= TEXT_SCORE]
    return {"median": statistics.median(scores) if scores else 1.0, "n": len(scores)}


def trigger(**rec_cfg):
    """A line's doubtfulness by the stage's own rule (stages/reread.py doubtful) under these RecConfig values."""
    cfg = dataclasses.replace(REC, **rec_cfg)

    def doubtful_line(ln, pf):
        t = ln["tiny"]
        spans = [(w["text"], 0.0, 1.0, w["score"]) for w in t["words"]]
        return bool(doubtful([(t["text"], t["score"])], [spans], [ln["tiny_letters"]], cfg))
    return doubtful_line


def today(below=0.95, word_below=0.85):
    """The trigger before this study: line below 0.95 or a word below 0.85."""
    return trigger(reread_below=below, reread_word_below=word_below)


def letters(below=0.95, line_below=0.97, letter_below=0.8, count=2, word_below=0.0):
    """The new trigger (stages/reread.py): line below 0.95, or below 0.97 with at least 2 letters or digits read
    with a probability below 0.8."""
    return trigger(reread_below=below, reread_word_below=word_below, reread_letters_line_below=line_below,
                   reread_letter_below=letter_below, reread_letters=count)


def oracle(ln, pf):
    return ln["tiny"]["text"] != ln["small"]["text"]


GRID = [dict(line_below=a, letter_below=c, count=k)
        for a in (0.96, 0.97, 0.98) for c in (0.7, 0.8, 0.9) for k in (1, 2, 3)]


def summary(label: str, r: dict, base: dict) -> str:
    return (f"| {label} | {r['right'] / r['gt_words'] * 100:.2f} % ({r['right']}) | {r['cer'] * 100:.2f} | "
            f"{r['wer'] * 100:.2f} | {r['n']} | {r['cost'] / base['cost']:.2f} | {r['area'] / base['area']:.2f} |")


def score_main(args) -> None:
    data = load(args.data)
    sc = Scorer(data)
    hard = {p["name"] for p, _ in data if p["name"].startswith("hard")}
    easy = {p["name"] for p, _ in data} - hard
    # The check: today's trigger scored offline against the real pipeline's result of the same run.
    real = {p["name"]: score(p, d["result"]) for p, d in data}
    for group, names in (("hard", hard), ("easy", easy)):
        rr = sum(real[n].get("words_right", 0) for n in names)
        print(f"[{group}] the pipeline's own result: words right {rr}; today's trigger offline: "
              f"{sc.run(today(), names)['right']}")
    new = letters()
    for group, names in (("hard", hard), ("easy pages and the two scans", easy)):
        base = sc.run(today(), names)
        print(f"\n{group} ({len(names)} pages); cost = summed padded width of the re-read batches, area = the same "
              "times the lines in each batch, both relative to today's trigger")
        print("| trigger | words right | CER % | WER % | lines re-read | cost | area |\n|---|---|---|---|---|---|---|")
        for label, trig in [("tiny only", lambda ln, pf: False), ("today: line < 0.95 or word < 0.85", today()),
                            ("new: line < 0.95, or < 0.97 with >= 2 letters < 0.8", new),
                            ("line < 0.97 or word < 0.85", today(0.97)),
                            ("oracle: the lines the larger recogniser reads differently", oracle),
                            ("every line", lambda ln, pf: True)]:
            print(summary(label, sc.run(trig, names), base))
    print("\nper page, words right (today -> new) and cost (today -> new):")
    t, n = sc.run(today()), sc.run(new)
    for name in sorted(t["per"]):
        a, b = t["per"][name], n["per"][name]
        if a.get("words_right") != b.get("words_right") or a["cost"] != b["cost"] or a["cer"] != b["cer"]:
            print(f"  {name:<26} {a.get('words_right', '-')} -> {b.get('words_right', '-')}   CER "
                  f"{a['cer'] * 100:.2f} -> {b['cer'] * 100:.2f}   cost {a['cost']} -> {b['cost']}")
    if args.grid:
        # Leave one page out: the thresholds chosen on the other hard pages (most words right at no more cost
        # than today's trigger there), scored on the page left out.
        runs = [(g, {name: sc.run(letters(**g), {name}) for name in hard}) for g in GRID]
        tod = {name: sc.run(today(), {name}) for name in hard}
        total_new = total_today = 0
        print("\nleave one hard page out:")
        for out in sorted(hard):
            rest = hard - {out}
            budget = sum(tod[x]["cost"] for x in rest)
            fits = [(sum(r[x]["right"] for x in rest), -sum(r[x]["cost"] for x in rest), k)
                    for k, (g, r) in enumerate(runs) if sum(r[x]["cost"] for x in rest) <= budget]
            g, r = runs[max(fits)[2]]
            total_new += r[out]["right"]
            total_today += tod[out]["right"]
            print(f"  {out:<26} chosen {g}: {r[out]['right']} (today {tod[out]['right']}), cost {r[out]['cost']} "
                  f"(today {tod[out]['cost']})")
        print(f"  total words right {total_new} against today's {total_today}")
        print("\nthe grid on the hard pages (line_below, letter_below, count: words right; cost and area relative "
              "to today's):")
        base, base_area = (sum(x[key] for x in tod.values()) for key in ("cost", "area"))
        for g, r in runs:
            print(f"  {g['line_below']} {g['letter_below']} {g['count']}: {sum(x['right'] for x in r.values())} "
                  f"{sum(x['cost'] for x in r.values()) / base:.2f} {sum(x['area'] for x in r.values()) / base_area:.2f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("collect", "score"))
    ap.add_argument("--pages", help="page-name prefixes (collect; default: every labelled page and the scans)")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--grid", action="store_true", help="score: also a grid of the new rule's thresholds and "
                                                        "leave-one-page-out on the hard pages")
    ap.add_argument("--rec", type=json.loads, default={}, help="RecConfig values (JSON) besides the triggers'")
    args = ap.parse_args(argv)
    global REC
    REC = dataclasses.replace(REC, **args.rec)
    (collect if args.command == "collect" else score_main)(args)


if __name__ == "__main__":
    main()
