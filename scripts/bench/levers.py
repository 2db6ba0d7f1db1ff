#!/usr/bin/env python3
"""Benchmark (not a test): what each accuracy lever of the default set costs and gains, natively.

  .venv/bin/python scripts/bench/levers.py [--pages hard] [--rounds 3] [--json out.json] [--no-memory]

The variants (scripts/bench/lib/levers.json) go from the old PP-OCRv6 tiny pipeline to the default, one lever at a time,
with PP-OCRv6 small beside them. Every page is read by every variant in turn within each round (alternating, so load
from elsewhere falls on all alike); a variant's time is the sum over pages of its per-page medians. Accuracy is
scored once per variant against the labelled pages' ground truth (tests/py/ocr_metrics.py): CER and WER pooled
over the pages, words right (text and box) over the pages with word boxes. CPU: the process's CPU time per read (both onnxruntime threads and Python), medians summed the same way; other
jobs on the machine weigh on it less than on the wall time. Memory: each variant's peak resident
size (VmHWM) in a fresh process that opens its models and reads the largest pages once.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "bench"))
from models import load_pages, pooled, scan_bytes, score  # noqa: E402
from retto.native.ort_worker import OrtWorker  # noqa: E402

LEVERS_FILE = ROOT / "scripts" / "bench" / "lib" / "levers.json"
MEMORY_PAGES = ("hard_deposition", "typewriter")


def peak_mb(set_name: str, config: dict, paths: list) -> float:
    code = ("import json, re, sys; from retto.native.ort_worker import OrtWorker\n"
            f"s = OrtWorker(models={set_name!r}, threads=2).session(json.loads({json.dumps(json.dumps(config))}))\n"
            f"[s.run(p) for p in {[str(p) for p in paths]!r}]\n"
            "print(int(re.search(r'VmHWM:\\s+(\\d+) kB', open('/proc/self/status').read()).group(1)) / 1024)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", help="page-name prefixes to keep (default: every labelled page and the scans)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--levers", type=Path, default=LEVERS_FILE, help="variants file (default scripts/bench/lib/levers.json)")
    args = ap.parse_args(argv)
    levers = json.loads(args.levers.read_text(encoding="utf-8"))["variants"]
    variants = [(v["label"], v["set"], v["config"]) for v in levers]   # (label, set, config over the set's own)
    pages = load_pages(args.pages.split(",") if args.pages else None)
    workers = {name: OrtWorker(models=name, threads=2) for name in {v[1] for v in variants}}
    sessions = [workers[name].session(config) for _label, name, config in variants]
    per = [{} for _ in variants]
    for page in pages:
        data = scan_bytes(page["path"])
        times = [[] for _ in variants]
        cpu = [[] for _ in variants]
        for k, s in enumerate(sessions):
            lines = s.run(data).to_dict()["lines"]                  # warm-up, and the result that is scored
            per[k][page["name"]] = score(page, lines)
        for _ in range(args.rounds):
            for k, s in enumerate(sessions):
                t0, c0 = time.perf_counter(), time.process_time()
                s.run(data)
                times[k].append((time.perf_counter() - t0) * 1000)
                cpu[k].append((time.process_time() - c0) * 1000)
        for k in range(len(variants)):
            per[k][page["name"]]["native_ms"] = statistics.median(times[k])
            per[k][page["name"]]["cpu_ms"] = statistics.median(cpu[k])
        print(f"  {page['name']:<26} " + "  ".join(f"{statistics.median(t):6.0f}" for t in times) + " ms",
              file=sys.stderr)
    rows = []
    for (label, name, config), p in zip(variants, per):
        boxed = [x for x in p.values() if "gt_words" in x]
        row = {"label": label, "set": name, "config": config,
               "cer": pooled(p, "cer", "chars"), "wer": pooled(p, "wer", "words"),
               "word_acc": sum(x["words_right"] for x in boxed) / max(1, sum(x["gt_words"] for x in boxed)),
               "native_ms": sum(x["native_ms"] for x in p.values()),
               "cpu_ms": sum(x["cpu_ms"] for x in p.values()), "pages": p}
        if not args.no_memory:
            paths = [pg["path"] for pg in load_pages(list(MEMORY_PAGES))]
            row["peak_mb"] = peak_mb(name, config, paths)
        rows.append(row)
    base, base_cpu = rows[0]["native_ms"], rows[0]["cpu_ms"]
    print(f"\n{len(pages)} pages, native onnxruntime CPU 2 threads, medians of {args.rounds} alternating rounds")
    print("| variant | CER % | WER % | words right % | native s | × old default | CPU s | CPU × old | peak MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        mem = f"{r['peak_mb']:.0f}" if "peak_mb" in r else "–"
        print(f"| {r['label']} | {r['cer'] * 100:.2f} | {r['wer'] * 100:.2f} | {r['word_acc'] * 100:.1f} | "
              f"{r['native_ms'] / 1000:.1f} | {r['native_ms'] / base:.2f} | {r['cpu_ms'] / 1000:.1f} | "
              f"{r['cpu_ms'] / base_cpu:.2f} | {mem} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
