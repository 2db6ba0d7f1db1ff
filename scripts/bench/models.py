#!/usr/bin/env python3
"""Benchmark (not a test): every model set on the labelled test set, natively; accuracy, speed and download size.

  .venv/bin/python scripts/bench/models.py [--sets a,b] [--pages hard] [--rounds 3] [--browser bench-browser.json]
                                           [--json out.json]

Pages: the rendered pages of tests/testset/pages (scripts/data/make_testset.py; exact ground truth with line boxes)
and the pinned real scans typewriter.png and c03-29.pdf (its page image) with their hand transcriptions
(tests/reference/*.gt.txt).
Per set x page it prints CER and WER (tests/py/ocr_metrics.score_page: each result line is matched to its
ground-truth line by position, so a page's column order does not decide the score; the typewriter scan is
single-column and is scored in reading order, c03-29 in row order), the word-box accuracy (words right: a
ground-truth word read with exactly its text at its place, box IoU >= 0.5 or mutual centres;
ocr_metrics.match_words; the real scans have no word boxes), the reading-order CER (the whole page in the result's
line order against the ground truth's reading order: what Copy text gives), the native time (median of --rounds
warm runs, onnxruntime CPU, 2 threads) and, with --browser (the JSON of scripts/bench/models_browser.mjs), the
browser time (wasm). The browser's texts are the native ones (tests/e2e/runtime/model_sets.spec.js), so accuracy is
measured once. Then the same accuracy figures per page kind (the ground truth's "kind", pooled over its pages), so
`--pages hard_dense,hard_parts,hard_bank,hard_filled` gives a table of just those kinds.
--pages NAME[,NAME] keeps only the pages whose name starts with one of them ("hard" = the hard pages, hard_*;
"c03" or "typewriter" for a real scan). Pages whose ground truth records a "known_failure" (a defect not fixed
yet, e.g. white text on a transparent PNG) are scored and shown but left out of the pooled figures, so they do not
blur the differences between sets until the defect is fixed.

Then the rule that picks the default set: the lowest WER over the whole test set (all words pooled), unless it is
more than 2x slower (native, all pages) than the next best by WER, in which case the next best is checked the same way.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "tests" / "py"))
from ocr_metrics import levenshtein, normalise_ws, reading_order_text, score_page  # noqa: E402
from retto.models import sets as model_sets  # noqa: E402
from retto.native.ort_worker import OrtWorker  # noqa: E402

PAGES = ROOT / "tests" / "testset" / "pages"
DATA, REFERENCE = ROOT / "tests" / "data", ROOT / "tests" / "reference"
# Real scans with hand transcriptions: (name, kind, file, transcription, hypothesis order). "result": the result's
# line order (single column); "rows": ocr_metrics.reading_order_text (rows top to bottom, boxes left to right),
# for c03-29 whose figure caption shares a row with the text beside the figure (transcribed in that order).
SCANS = [("typewriter", "real scan (typewriter)", DATA / "typewriter.png", REFERENCE / "typewriter.gt.txt", "result"),
         ("c03-29", "real scan (book page, 150 ppi)", DATA / "c03-29.pdf", REFERENCE / "c03-29.gt.txt", "rows")]


def scan_bytes(path: Path) -> bytes:
    """An image file's bytes; for a PDF scan, its one embedded page image exactly as stored (JPEG for c03-29)."""
    if path.suffix != ".pdf":
        return path.read_bytes()
    import io
    import pypdfium2 as pdfium
    page = pdfium.PdfDocument(path)[0]
    image = next(o for o in page.get_objects() if o.type == pdfium.raw.FPDF_PAGEOBJ_IMAGE)
    buf = io.BytesIO()
    image.extract(buf)
    return buf.getvalue()


def load_pages(prefixes=None) -> list[dict]:
    pages = []
    keep = (lambda n: any(n.startswith(p) for p in prefixes)) if prefixes else (lambda n: True)
    for gt_path in sorted(PAGES.glob("*.gt.json")):
        gt = json.loads(gt_path.read_text(encoding="utf-8"))
        if keep(gt["name"]):
            pages.append({"name": gt["name"], "kind": gt.get("kind", gt["name"]), "path": PAGES / gt["image"],
                          "gt": gt})
    for name, kind, path, text, order in SCANS:
        if keep(name):
            pages.append({"name": name, "kind": kind, "path": path, "text": text.read_text(encoding="utf-8"),
                          "order": order})
    if not pages:
        raise SystemExit(f"no pages {'matching ' + ','.join(prefixes) + ' ' if prefixes else ''}in {PAGES}: "
                         "run scripts/data/make_testset.py")
    return pages


def score(page: dict, lines: list) -> dict:
    if "gt" in page:
        return score_page(lines, page["gt"])
    ref = normalise_ws(page["text"])
    if page["order"] == "rows":
        hyp = reading_order_text([(line["box"], line["text"]) for line in lines])
    else:
        hyp = normalise_ws(" ".join(line["text"] for line in lines))
    cer = levenshtein(hyp, ref) / len(ref)
    return {"cer": cer, "wer": levenshtein(hyp.split(), ref.split()) / len(ref.split()),
            "chars": len(ref), "words": len(ref.split()), "order_cer": cer}   # scored in reading order already


def run_sets(names: list, pages: list, rounds: int) -> dict:
    """set -> page -> scores and native time. Sets alternate within every round of every page, so load from
    elsewhere on the machine falls on all of them alike (the ratios hold even when the absolute times do not)."""
    sessions = {name: OrtWorker(models=name, threads=2).session() for name in names}
    out = {name: {} for name in names}
    for page in pages:
        data = scan_bytes(page["path"])
        times = {name: [] for name in names}
        for name in names:
            result = sessions[name].run(data).to_dict()          # warm-up, and the result that is scored
            out[name][page["name"]] = {**score(page, result["lines"]), "lines": len(result["lines"])}
        for _ in range(rounds):
            for name in names:
                t0 = time.perf_counter()
                sessions[name].run(data)
                times[name].append((time.perf_counter() - t0) * 1000)
        for name in names:
            p = out[name][page["name"]]
            p["native_ms"] = statistics.median(times[name])
            acc = f"words right {p['word_acc'] * 100:6.2f} %  " if "word_acc" in p else ""
            print(f"  {name:<16} {page['name']:<26} CER {p['cer'] * 100:6.2f} %  WER {p['wer'] * 100:6.2f} %  "
                  f"{acc}order CER {p['order_cer'] * 100:6.2f} %  {p['native_ms']:7.0f} ms", file=sys.stderr)
    return out


def pooled(per_page: dict, key: str, unit: str) -> float:
    """Errors pooled over the pages (each page weighs by its length), not a mean of page rates."""
    return sum(p[key] * p[unit] for p in per_page.values()) / sum(p[unit] for p in per_page.values())


def choose_default(summary: dict) -> tuple[str, str]:
    ranked = sorted(summary, key=lambda n: summary[n]["wer"])
    for i, name in enumerate(ranked):
        nxt = ranked[i + 1] if i + 1 < len(ranked) else None
        if nxt is None or summary[name]["native_ms"] <= 2 * summary[nxt]["native_ms"]:
            why = (f"lowest WER {summary[name]['wer'] * 100:.2f} %" if i == 0 else
                   f"WER {summary[name]['wer'] * 100:.2f} %; better sets were over 2x slower than the next best")
            return name, why
    return ranked[0], "lowest WER"


def by_kind(pages: list, per_page: dict, known: dict) -> dict:
    """kind -> accuracy pooled over that kind's pages (known failures left out): CER, WER, reading-order CER and,
    where the pages have word boxes, words right."""
    kinds: dict = {}
    for page in pages:
        if page["name"] not in known:
            kinds.setdefault(page["kind"], {})[page["name"]] = per_page[page["name"]]
    out = {}
    for kind, per in kinds.items():
        out[kind] = {"cer": pooled(per, "cer", "chars"), "wer": pooled(per, "wer", "words"),
                     "order_cer": pooled(per, "order_cer", "chars"), "pages": len(per)}
        boxed = [p for p in per.values() if "gt_words" in p]
        if boxed:
            out[kind]["word_acc"] = sum(p["words_right"] for p in boxed) / sum(p["gt_words"] for p in boxed)
    return out


def print_kinds(pages: list, results: dict, names: list, known: dict) -> None:
    kinds = {name: by_kind(pages, results[name], known) for name in names}

    def cell(k: dict) -> str:
        acc = f"{k['word_acc'] * 100:.1f}" if "word_acc" in k else "–"
        return f"{k['cer'] * 100:.1f} / {k['wer'] * 100:.1f} / {acc} / {k['order_cer'] * 100:.1f}"

    print("\nCER % / WER % / words right % / reading-order CER %, per page kind (pooled over its pages)")
    print("| kind (pages) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for kind, k in kinds[names[0]].items():
        print(f"| {kind} ({k['pages']}) | " + " | ".join(cell(kinds[n][kind]) for n in names) + " |")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", help="comma-separated set names (default: every PaddleOCR set; the Tesseract sets read "
                    "other scripts than these pages', tests/py/native/test_script_sets.py)")
    ap.add_argument("--pages", help="comma-separated page-name prefixes to keep, e.g. hard (default: all)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--browser", type=Path, help="browser timings from scripts/bench/models_browser.mjs")
    ap.add_argument("--json", type=Path, help="write every number here")
    args = ap.parse_args(argv)
    sets = [s for s in model_sets.available() if (s.name in args.sets.split(",") if args.sets else not s.line_rec)]
    pages = load_pages(args.pages.split(",") if args.pages else None)
    browser = json.loads(args.browser.read_text()) if args.browser else {}
    results, summary = run_sets([s.name for s in sets], pages, args.rounds), {}
    known = {p["name"]: p["gt"]["known_failure"] for p in pages if p.get("gt", {}).get("known_failure")}
    for s in sets:
        per = {page: p for page, p in results[s.name].items() if page not in known}
        summary[s.name] = {"cer": pooled(per, "cer", "chars"), "wer": pooled(per, "wer", "words"),
                           "order_cer": pooled(per, "order_cer", "chars"),
                           "native_ms": sum(p["native_ms"] for p in per.values()), "mb": s.download_bytes / 1e6}
        boxed = [p for p in per.values() if "gt_words" in p]
        if boxed:
            summary[s.name]["word_acc"] = (sum(p["words_right"] for p in boxed) /
                                           sum(p["gt_words"] for p in boxed))
        for page, ms in browser.get(s.name, {}).items():
            if page in results[s.name]:
                results[s.name][page]["browser_ms"] = ms
        if browser.get(s.name):
            summary[s.name]["browser_ms"] = sum(p.get("browser_ms", 0) for p in per.values())

    def cell(p: dict) -> str:
        b = f" / {p['browser_ms'] / 1000:.1f}" if "browser_ms" in p else ""
        acc = f"{p['word_acc'] * 100:.1f}" if "word_acc" in p else "–"
        return (f"{p['cer'] * 100:.1f} / {p['wer'] * 100:.1f} / {acc} / {p['order_cer'] * 100:.1f} "
                f"({p['native_ms'] / 1000:.1f}{b} s)")

    print("\nCER % / WER % / words right % / reading-order CER % (native s / browser s), per page; medians of warm "
          "runs; all pages: pooled (words right over the pages with word boxes)")
    print("| page | " + " | ".join(s.name for s in sets) + " |")
    print("|---|" + "---|" * len(sets))
    for page in pages:
        mark = " (known failure, not pooled)" if page["name"] in known else ""
        print(f"| {page['name']}{mark} | " + " | ".join(cell(results[s.name][page['name']]) for s in sets) + " |")
    print("| **all pages** | " + " | ".join(cell(summary[s.name]) for s in sets) + " |")
    print("| download MB | " + " | ".join(f"{summary[s.name]['mb']:.1f}" for s in sets) + " |")
    print_kinds(pages, results, [s.name for s in sets], known)
    best, why = choose_default(summary)
    print(f"\ndefault by the rule: {best} ({why})")
    if args.json:
        args.json.write_text(json.dumps({"pages": results, "summary": summary, "default": best, "why": why,
                                         "kinds": {s.name: by_kind(pages, results[s.name], known) for s in sets}},
                                        indent=1))


if __name__ == "__main__":
    main()
