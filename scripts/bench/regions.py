"""What page regions and tables cost per page, natively: the default set read with layout.regions/tables off and
on, alternating page by page (this machine is shared and noisy), medians of the wall time per page and of the
`regions` stage (layout model, table model per table, placing). Usage: scripts/bench/regions.py [--rounds N] [pages...]
(default: a generated report page and bank statement, scripts/data/make_tables.py, and linn.png, a brochure page).
`--testset`: instead, what regions + tables change on the labelled pages (scripts/data/make_testset.py): per page
the line CER and the reading-order CER (tests/py/ocr_metrics.score_page) with them off and on.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "scripts" / "data"))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--testset", action="store_true")
    ap.add_argument("pages", nargs="*")
    args = ap.parse_args(argv)
    if args.testset:
        return score_testset(args.threads)
    import make_tables
    from retto.io.image import read_image_file
    from retto.native.ort_worker import OrtWorker
    make_tables.main([])
    pages = [Path(p) for p in args.pages] or [make_tables.OUT / "region_report.png",
                                              make_tables.OUT / "bank_statement.png", ROOT / "tests/data/linn.png"]
    worker = OrtWorker(threads=args.threads)
    modes = {"off": worker.session(), "regions": worker.session({"layout": {"regions": True}}),
             "regions+tables": worker.session({"layout": {"regions": True, "tables": True}})}
    for s in modes.values():   # warm-up: every model opened and run once
        s.run(read_image_file(pages[0]))
    for page in pages:
        data = read_image_file(page)
        total = {m: [] for m in modes}
        stage = {m: [] for m in modes}
        for _ in range(args.rounds):
            for m, s in modes.items():
                t0 = time.perf_counter()
                r = s.run(data)
                total[m].append((time.perf_counter() - t0) * 1000)
                stage[m].append(r.timings.get("regions", 0.0))
        print(f"{page.name}: " + "; ".join(
            f"{m} {statistics.median(total[m]):.0f} ms (regions stage {statistics.median(stage[m]):.0f} ms)"
            for m in modes) + f"  [median of {args.rounds}, {args.threads} threads]")


def score_testset(threads: int) -> None:
    import json
    sys.path.insert(0, str(ROOT / "tests" / "py"))
    from ocr_metrics import score_page
    from retto.export import page_lines
    from retto.native.ort_worker import OrtWorker
    worker = OrtWorker(threads=threads)
    modes = {"off": worker.session(), "on": worker.session({"layout": {"regions": True, "tables": True}})}
    pages = ROOT / "tests" / "testset" / "pages"
    totals = {m: [0.0, 0.0, 0] for m in modes}
    for gt_path in sorted(pages.glob("*.gt.json")):
        gt = json.loads(gt_path.read_text(encoding="utf-8"))
        stem = gt_path.name[:-len(".gt.json")]
        image = next(p for p in (pages / f"{stem}.png", pages / f"{stem}.jpg") if p.exists())
        row = []
        for m, s in modes.items():
            r = s.run(image).to_dict()
            sc = score_page(r["lines"], gt)
            # reading order as copied: result.text (a table row by row), against the GT lines in order
            text = "\n".join(page_lines(r)).replace("\t", " ")
            sc["order_cer"] = score_page([{"text": text, "box": [[0, 0], [1, 0], [1, 1], [0, 1]]}], gt)["order_cer"]
            totals[m][0] += sc["cer"] * sc["chars"]
            totals[m][1] += sc["order_cer"] * sc["chars"]
            totals[m][2] += sc["chars"]
            row.append(f"{m}: cer {sc['cer']:.2%} order {sc['order_cer']:.2%} ({len(r['tables'])} tables)")
        print(f"{image.name:32} " + "  ".join(row), flush=True)
    for m, (c, o, n) in totals.items():
        print(f"{m}: line CER {c / n:.2%}, reading-order CER {o / n:.2%} (character-weighted over the pages)")


if __name__ == "__main__":
    main()
