#!/usr/bin/env python3
"""Benchmark (not a test): the script check's confusion matrix, natively. Every Tesseract script set reads every
script test page (scripts/data/make_script_testset.py: clean, degraded, photo) and Latin pages (a sample of the
labelled test set's pages, tests/testset/pages/, `--all-latin` for all of them, and tests/data/baiona.png,
typewriter.png); a set's own pages must not get the script check's warning (else a false alarm), every other
page should (else a miss). Prints, per set and page, the share of the letters read that are in the set's main
script, the words' confidence, the letters read and the verdict ('.' quiet, 'W' warned, 'W=x' warned naming
set x), then the counts of false alarms and misses.
Usage: scripts/bench/script_mismatch.py [--sets a,b] [--pages a,b] [--all-latin] [--json OUT] [--threads N]
(about 20 minutes on this 2-core machine); `--rejudge OUT` judges the lines an earlier run read again with the
stage as it is now, without OCR (the stage reads nothing else), to try thresholds.
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "scripts" / "data"))

# The Latin pages read by default (all 29 with --all-latin, several times longer: a set reads a line it reads with
# little confidence twice, both ways up, and larger pages took up to 5 minutes for the 16 sets): prose in three
# languages, an invoice, a receipt, Chinese with English.
LATIN = ("english_prose", "french", "german", "invoice", "hard_receipt", "chinese_english")


def pages(all_latin: bool) -> list:
    """[(page name, its set, or 'latin' / 'han' for the Latin and Chinese-English pages, path)]."""
    import make_script_testset
    out = []
    for path in sorted(make_script_testset.OUT.glob("*.png")):
        name, variant = path.stem.rsplit("_", 1)
        if variant in make_script_testset.VARIANTS:
            out.append((path.stem, name, path))
    for path in sorted((ROOT / "tests" / "testset" / "pages").glob("*.png")):
        if all_latin or path.stem in LATIN:
            out.append((path.stem, "han" if path.stem.startswith("chinese") else "latin", path))
    for name in ("baiona", "typewriter"):
        out.append((name, "latin", ROOT / "tests" / "data" / f"{name}.png"))
    return out


def finish(coro):
    """Drive a stage coroutine over a native (synchronous) worker to its end."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("a native worker never waits")


def judge(stage, texts: list, spans: list) -> dict:
    """The script check's stage on a page's lines as read (the stage reads nothing else)."""
    page = finish(stage.run(SimpleNamespace(texts=texts, spans=spans, warnings=[], script=None)))
    return {"warning": page.warnings[0] if page.warnings else "", **(page.script or {})}


def main(argv=None) -> None:
    from retto.models import sets as model_sets
    from retto.native.ort_worker import OrtWorker
    from retto.pipeline.infer import run_stage
    from retto.pipeline.page import Page
    from retto.pipeline.stages.script_check import WARNING_START, ScriptCheck

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="")
    ap.add_argument("--pages", default="")
    ap.add_argument("--all-latin", action="store_true", help="every page of tests/testset/pages, not a sample")
    ap.add_argument("--json", default="", help="write every reading and verdict here (after each page)")
    ap.add_argument("--rejudge", default="", help="a --json file of an earlier run: judge its lines as read again "
                                                  "with today's stage (for choosing thresholds; no OCR)")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    if args.rejudge:
        rows = json.loads(Path(args.rejudge).read_text(encoding="utf-8"))
        stages = {}
        for r in rows:
            stage = stages.setdefault(r["set"], ScriptCheck(SimpleNamespace(model_set=r["set"])))
            r.update(judge(stage, [tuple(t) for t in r["texts"]], [[tuple(w) for w in ws] for ws in r["spans"]]))
            r["warned"] = r["warning"].startswith(WARNING_START)
        return report(rows)
    chosen = [s for s in model_sets.available() if s.line_rec and (not args.sets or s.name in args.sets.split(","))]
    # Every Tesseract set has the same detector, line classifier and settings, so each page's lines are found once
    # and every set reads the same crops with the rest of its own stage list (checked here, not assumed).
    shared = {json.dumps([s.files["det"]["sha256"], s.files["cls"]["sha256"], s.config, s.inputs]) for s in chosen}
    assert len(shared) == 1, "the Tesseract sets no longer share det and cls: run each set's whole pipeline"
    sessions = {s.name: OrtWorker(models=s.name, threads=args.threads).session() for s in chosen}
    first = next(iter(sessions.values()))
    assert [st.name for st in first.stages[:2]] == ["det", "cls"]
    todo = [p for p in pages(args.all_latin) if not args.pages or p[0] in args.pages.split(",")]
    rows, t0 = [], time.time()
    for page_name, truth, path in todo:
        start = time.perf_counter()
        lined = Page.decode(path.read_bytes(), first.config, lambda stage, info: None)
        for stage in first.stages[:2]:
            lined = finish(run_stage(stage, lined))
        for name, session in sessions.items():
            page = copy.deepcopy(lined)
            for stage in session.stages[2:]:
                page = finish(run_stage(stage, page))
            result = page.result(session, start).to_dict()
            said = [w for w in result["warnings"] if w.startswith(WARNING_START)]
            rows.append({"set": name, "page": page_name, "truth": truth, "warned": bool(said),
                         "warning": said[0] if said else "", **(page.script or {}),
                         "texts": page.texts, "spans": page.spans})
        print(f"{page_name}: {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    report(rows)


def report(rows: list) -> None:
    own = [r for r in rows if r["truth"] == r["set"]]
    other = [r for r in rows if r["truth"] != r["set"]]
    scripts = [r for r in other if r["truth"] not in ("latin", "han")]
    latin = [r for r in other if r["truth"] in ("latin", "han")]
    print("set         page                         share  conf letters verdict")
    for r in rows:
        mark = ("W" + (f"={r['suggest']}" if r.get("suggest") else "")) if r["warned"] else "."
        print(f"{r['set']:11} {r['page']:28} {r.get('share', 0):5.2f} {r.get('confidence', 0):5.2f} "
              f"{r.get('letters_total', 0):7d} {mark}")
    print()
    print(f"false alarms (a set's own page warned): {sum(r['warned'] for r in own)} of {len(own)}")
    for r in own:
        if r["warned"]:
            print(f"  {r['set']} {r['page']}: {r['warning']}")
    print(f"misses, other scripts' pages: {sum(not r['warned'] for r in scripts)} of {len(scripts)}")
    print(f"misses, Latin and Chinese-English pages: {sum(not r['warned'] for r in latin)} of {len(latin)}")
    for r in other:
        if not r["warned"]:
            print(f"  {r['set']} {r['page']}: share {r.get('share', 0):.2f} confidence {r.get('confidence', 0):.2f} "
                  f"letters {r.get('letters_total', 0)}")
    named = [r for r in other if r["warned"] and r.get("looks_like")]
    right = [r for r in named if r["looks_like"] == "Latin" and r["truth"] in ("latin", "han")
             or r.get("suggest") == r["truth"]]
    print(f"warnings naming the script the page looks like: {len(named)} of {sum(r['warned'] for r in other)}, "
          f"right: {len(right)}")
    for r in named:
        if r not in right:
            print(f"  wrong: {r['set']} {r['page']}: {r['warning']}")


if __name__ == "__main__":
    main()
