"""Benchmark (not a test): detection input size for small or wide images, natively (onnxruntime CPU).

    .venv/bin/python scripts/bench/small_inputs.py [--set ppocr-v6-tiny] [--caps 0,1,2,3] [--threads 2]

With det.limit_type "min" (every set), the short side is enlarged to 736: a one-line crop 400x50 becomes a
5888x736 det input. det.max_upscale caps that enlargement. For each cap this runs the set over
- line crops: every labelled line of tests/testset/pages (english_prose, french, german, spanish, invoice), cut
  out with an 8 px margin (invoice cells are single words and numbers);
- receipt-sized crops: each text column of columns_two / columns_three cut out (300-460 x 360-510 px);
and reports the det input's pixels, det and total time (medians), and CER/WER against the labels
(tests/py/ocr_metrics.py: cer on the crop's one line; score_page on the strips).
"""
from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "py"))
from ocr_metrics import cer, normalise_ws, score_page, wer  # noqa: E402
from retto.native.ort_worker import OrtWorker  # noqa: E402

PAGES = ROOT / "tests" / "testset" / "pages"
LINE_PAGES = ["english_prose", "french", "german", "spanish", "invoice"]
STRIP_PAGES = ["columns_two", "columns_three"]
MARGIN = 8


def png(img: Image.Image) -> bytes:
    b = io.BytesIO()
    img.save(b, format="PNG")
    return b.getvalue()


def line_crops():
    for name in LINE_PAGES:
        gt = json.loads((PAGES / f"{name}.gt.json").read_text())
        page = Image.open(PAGES / gt["image"]).convert("RGB")
        for line in gt["lines"]:
            xs = [p[0] for p in line["box"]]
            ys = [p[1] for p in line["box"]]
            box = (max(0, min(xs) - MARGIN), max(0, min(ys) - MARGIN), min(page.width, max(xs) + MARGIN),
                   min(page.height, max(ys) + MARGIN))
            yield f"{name}:{line['text'][:20]}", png(page.crop(box)), line["text"]


def strips():
    """Columns as tall narrow images (receipt-like), with the labelled lines inside them (boxes moved into the
    strip). A column: the lines whose left edges lie within 40 px of each other, 8 lines or more."""
    for name in STRIP_PAGES:
        gt = json.loads((PAGES / f"{name}.gt.json").read_text())
        page = Image.open(PAGES / gt["image"]).convert("RGB")
        columns: list[list] = []
        for line in sorted(gt["lines"], key=lambda l: min(p[0] for p in l["box"])):
            x0 = min(p[0] for p in line["box"])
            if columns and x0 - min(p[0] for p in columns[-1][0]["box"]) <= 40:
                columns[-1].append(line)
            else:
                columns.append([line])
        for c, lines in enumerate(col for col in columns if len(col) >= 8):
            x0 = max(0, min(p[0] for l in lines for p in l["box"]) - MARGIN)
            y0 = max(0, min(p[1] for l in lines for p in l["box"]) - MARGIN)
            x1 = min(page.width, max(p[0] for l in lines for p in l["box"]) + MARGIN)
            y1 = min(page.height, max(p[1] for l in lines for p in l["box"]) + MARGIN)
            moved = [{**l, "box": [[p[0] - x0, p[1] - y0] for p in l["box"]]} for l in lines]
            yield f"{name}:column{c}", png(page.crop((x0, y0, x1, y1))), {"lines": moved}


def run(session, data):
    t0 = time.perf_counter()
    r = session.run(data).to_dict()
    return r, (time.perf_counter() - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default=None)
    ap.add_argument("--caps", default="0,1,2,3")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    worker = OrtWorker(threads=args.threads, models=args.set)
    crops = list(line_crops())
    cols = list(strips())
    print(f"set {worker.model_set.name}: {len(crops)} line crops, {len(cols)} column strips")
    print(f"{'max_upscale':>11} | {'crops: det px':>13} {'det ms':>7} {'total ms':>8} {'CER':>7} {'WER':>7} | "
          f"{'strips: det px':>14} {'det ms':>7} {'total ms':>8} {'CER':>7} {'WER':>7}")
    for cap in [float(c) for c in args.caps.split(",")]:
        from retto.ops import det as det_mod
        session = worker.session({"det": {"max_upscale": cap}})
        cfg = session.config.det
        rows = []
        edits = chars = wedits = words = 0
        for _, data, text in crops:
            r, ms = run(session, data)
            img = Image.open(io.BytesIO(data))
            h, w = det_mod.input_size(img.height, img.width, cfg)  # before the global letterbox of very wide ones
            hyp = normalise_ws(" ".join(line["text"] for line in r["lines"]))
            ref = normalise_ws(text)
            edits += cer(hyp, ref) * max(1, len(ref))
            chars += max(1, len(ref))
            wedits += wer(hyp, ref) * max(1, len(ref.split()))
            words += max(1, len(ref.split()))
            rows.append((h * w, r["timings"]["det"], ms))
        srows = []
        s_edits = s_chars = s_wedits = s_words = 0
        for _, data, gt in cols:
            r, ms = run(session, data)
            img = Image.open(io.BytesIO(data))
            h, w = det_mod.input_size(img.height, img.width, cfg)
            sc = score_page(r["lines"], gt)
            s_edits += sc["cer"] * sc["chars"]
            s_chars += sc["chars"]
            s_wedits += sc["wer"] * sc["words"]
            s_words += sc["words"]
            srows.append((h * w, r["timings"]["det"], ms))
        med = lambda rs, i: statistics.median(x[i] for x in rs)  # noqa: E731
        print(f"{cap:>11g} | {med(rows, 0):>13,.0f} {med(rows, 1):>7.1f} {med(rows, 2):>8.1f} "
              f"{100 * edits / chars:>6.2f}% {100 * wedits / words:>6.2f}% | "
              f"{med(srows, 0):>14,.0f} {med(srows, 1):>7.1f} {med(srows, 2):>8.1f} "
              f"{100 * s_edits / s_chars:>6.2f}% {100 * s_wedits / s_words:>6.2f}%")
    print("det px: median det input pixels (before the global letterbox of images wider than 8:1); times: median "
          "per image, native, warm; CER/WER: summed edits over summed reference length.")


if __name__ == "__main__":
    main()
