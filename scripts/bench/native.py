"""Benchmark (not a test): retto's native pipeline vs RapidOCR 1.4.4, side by side, same intra-op thread count.

    .venv/bin/python scripts/bench/native.py [--rounds 5] [--threads 2] [--json out.json]

Both engines get the same work per image, timed from the file's bytes to the result:
- ours: `Session.run(file_bytes)` (decode, EXIF/mode conversion, det, cls, rec);
- RapidOCR: Pillow decode + convert('RGB') + RGB->BGR ndarray, then `engine(ndarray)` (it cannot read the
  1-bit palette PNGs itself, docs/facts.md §4, so a user has to convert first).
Threads: our OrtWorker(threads=N) and RapidOCR(intra_op_num_threads=N, inter_op_num_threads=1) (RapidOCR 1.4.4
copies these Global keys into its Det/Cls/Rec SessionOptions); the value each session really got is printed.
One warm-up run per engine and image, then N rounds; within a round the images alternate ours/RapidOCR, and
which engine goes first flips every round. Reported: median wall time per image and engine, the ratio
ours/RapidOCR (goal <= 0.9), and our per-stage medians (stage wall time and the model-inference share of it).
"""
from __future__ import annotations

import argparse
import io
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "setup"))
import fetch_test_data  # noqa: E402

IMAGES = ("typewriter", "linn", "baiona")


def rapid_from_bytes(engine, data: bytes):
    with Image.open(io.BytesIO(data)) as im:
        rgb = np.asarray(im.convert("RGB"))
    res, elapse = engine(np.ascontiguousarray(rgb[:, :, ::-1]))
    return res or [], elapse or [0.0, 0.0, 0.0]


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                    help="intra-op threads for both engines (default: 2, the cores of the reference machine)")
    ap.add_argument("--images", nargs="+", default=list(IMAGES), choices=IMAGES)
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = ap.parse_args()

    fetch_test_data.main()
    data = {name: (fetch_test_data.DATA / f"{name}.png").read_bytes() for name in args.images}

    import onnxruntime
    from rapidocr_onnxruntime import RapidOCR

    from retto import Config, Session
    from retto.native.ort_worker import OrtWorker

    worker = OrtWorker(device="cpu", threads=args.threads, models="ppocr-v4")   # the same models as RapidOCR
    ours = Session(worker, charset=worker.charset, config=Config(), backend=worker.backend,
                   versions=worker.versions)
    rapid = RapidOCR(intra_op_num_threads=args.threads, inter_op_num_threads=1)

    def intra(sess):
        return sess.get_session_options().intra_op_num_threads
    threads_seen = {
        "ours": {role: intra(s) for role, (s, *_rest) in getattr(worker, "_sessions", {}).items()},
        "rapidocr": {"det": intra(rapid.text_det.infer.session), "cls": intra(rapid.text_cls.infer.session),
                     "rec": intra(rapid.text_rec.session.session)},
    }
    load_before = os.getloadavg()
    print(f"onnxruntime {onnxruntime.__version__}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores; intra-op threads requested {args.threads}, set: {threads_seen}")
    print(f"load average before: {load_before[0]:.2f} (anything else running on these cores skews the figures)")

    times = {n: {"ours": [], "rapidocr": []} for n in args.images}
    stages = {n: [] for n in args.images}
    rapid_stages = {n: [] for n in args.images}
    lines = {}

    # warm-up (also checks both engines work, and records line counts)
    for name in args.images:
        r = ours.run(data[name])
        res, _ = rapid_from_bytes(rapid, data[name])
        lines[name] = {"ours": len(r.lines), "rapidocr": len(res)}
    print("warm-up done; lines found:", lines)

    for rnd in range(args.rounds):
        order = ("ours", "rapidocr") if rnd % 2 == 0 else ("rapidocr", "ours")
        for name in args.images:
            for engine in order:
                t0 = time.perf_counter()
                if engine == "ours":
                    r = ours.run(data[name])
                    times[name]["ours"].append(time.perf_counter() - t0)
                    stages[name].append(r.timings)
                else:
                    _, elapse = rapid_from_bytes(rapid, data[name])
                    times[name]["rapidocr"].append(time.perf_counter() - t0)
                    rapid_stages[name].append(elapse)
        print(f"round {rnd + 1}/{args.rounds}: " + ", ".join(
            f"{n} {times[n]['ours'][-1]:.2f}/{times[n]['rapidocr'][-1]:.2f} s" for n in args.images), flush=True)

    load_after = os.getloadavg()
    report = {"load_average_1min": {"before": load_before[0], "after": load_after[0]}, "threads": args.threads, "threads_seen": threads_seen, "rounds": args.rounds,
              "onnxruntime": onnxruntime.__version__, "cpu_count": os.cpu_count(), "images": {}}
    print()
    print(f"{'image':<11} {'ours s':>8} {'RapidOCR s':>11} {'ratio':>6}   ours per stage, median ms "
          "(stage wall / of which model inference)")
    tot_ours = tot_rapid = 0.0
    for name in args.images:
        mo, mr = median(times[name]["ours"]), median(times[name]["rapidocr"])
        tot_ours += mo
        tot_rapid += mr
        st = {k: median([t[k] for t in stages[name]]) for k in ("decode", "det", "cls", "rec", "total")}
        inf = {k: median([t["infer"][k] for t in stages[name]]) for k in ("det", "cls", "rec")}
        rs = {k: median([e[i] * 1000 for e in rapid_stages[name]]) for i, k in enumerate(("det", "cls", "rec"))}
        report["images"][name] = {
            "ours_median_s": mo, "rapidocr_median_s": mr, "ratio": mo / mr,
            "ours_runs_s": times[name]["ours"], "rapidocr_runs_s": times[name]["rapidocr"],
            "ours_stage_median_ms": st, "ours_infer_median_ms": inf,
            "rapidocr_reported_median_ms": rs, "lines": lines[name],
        }
        print(f"{name:<11} {mo:>8.3f} {mr:>11.3f} {mo / mr:>6.2f}   decode {st['decode']:.0f}, "
              f"det {st['det']:.0f}/{inf['det']:.0f}, cls {st['cls']:.0f}/{inf['cls']:.0f}, "
              f"rec {st['rec']:.0f}/{inf['rec']:.0f}")
    report["total"] = {"ours_s": tot_ours, "rapidocr_s": tot_rapid, "ratio": tot_ours / tot_rapid}
    print(f"{'all three':<11} {tot_ours:>8.3f} {tot_rapid:>11.3f} {tot_ours / tot_rapid:>6.2f}   (sum of medians)")
    print("RapidOCR's own elapse (median ms; det = whole stage, cls/rec = model + post-processing only): " + "; ".join(
        f"{n} " + ", ".join(f"{k} {v:.0f}" for k, v in report["images"][n]["rapidocr_reported_median_ms"].items())
        for n in args.images))
    print(f"load average (1 min) before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
