"""Native side of the browser e2e tests (run with .venv/bin/python): the same inputs through native code.

  native_ref.py clip-cases SEED N   -> JSON {cases, offset, multi, retto_clip} from the real pyclipper
  native_ref.py bad-inputs DIR      -> writes the native suite's bad inputs (+ 1x1) into DIR, prints
                                       JSON {name: {"error": {...}} | {"lines": n}} from the native Session
  native_ref.py photo PATH          -> writes a 47 MP JPEG "photo" of a labelled test-set page (5x) to PATH
                                       (skipped when it exists), prints JSON {"path"}
  native_ref.py cli-runs JSON        -> runs the CLI's main (retto.cli.main) once for each argument list of the JSON
                                       list, one after the other in this one process, prints JSON [{code, stdout}]:
                                       what separate `python -m retto ARGS` runs print, without a Python start-up
                                       and imports per run (the Tesseract sets, tesseract_sets.spec.js)
OCR parity uses the real CLI (python -m retto --images ... --format json) directly.
"""
from __future__ import annotations

import io
import json
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def clip_cases(seed: int, n: int) -> list[dict]:
    """Random closed polygons as py/retto offsets them (unclip: grow, any join type): rotated boxes of all
    sizes (det boxes), tiny ones where float->int truncation matters, simple star-shaped polygons (convex and
    concave), and polygons with repeated and collinear points. Deltas from 1 px, many below 2 px: retto's unclip
    distance is >= 1.2 px (boxes under 3 px are dropped before it). Below 1 px clipper-lib's final union can
    keep a spike pyclipper removes (seen in ~1 of 5000 such cases)."""
    rnd = random.Random(seed)
    cases = []
    for i in range(n):
        kind = i % 4
        if kind in (0, 1):  # a det-like rotated box; kind 1: tiny
            x, y = rnd.uniform(-20, 900), rnd.uniform(-20, 900)
            w, h = (rnd.uniform(3, 300), rnd.uniform(3, 60)) if kind == 0 else (rnd.uniform(0.5, 6), rnd.uniform(0.5, 4))
            a = rnd.uniform(-0.6, 0.6)
            c, s = math.cos(a), math.sin(a)
            path = [[x + dx * c - dy * s, y + dx * s + dy * c] for dx, dy in ((0, 0), (w, 0), (w, h), (0, h))]
        elif kind == 2:  # simple star-shaped polygon (vertices sorted by angle around a centre)
            cx, cy, k = rnd.uniform(0, 800), rnd.uniform(0, 800), rnd.randint(3, 12)
            angles = sorted(rnd.uniform(0, 2 * math.pi) for _ in range(k))
            path = [[cx + r * math.cos(t), cy + r * math.sin(t)] for t in angles for r in [rnd.uniform(2, 200)]]
        else:  # repeated and collinear points
            x, y, w, h = rnd.uniform(0, 500), rnd.uniform(0, 500), rnd.uniform(5, 80), rnd.uniform(5, 40)
            path = [[x, y], [x, y], [x + w / 2, y], [x + w, y], [x + w, y + h], [x + w, y + h], [x, y + h]]
        delta = rnd.choice([rnd.uniform(1, 2), rnd.uniform(2, 40), float(rnd.randint(1, 20))])
        cases.append({"path": path, "delta": delta, "join": rnd.randint(0, 2), "end": 0})
    return cases


def clip_native(seed: int, n: int) -> dict:
    import pyclipper

    sys.path.insert(0, str(ROOT / "py"))
    from retto.ops.clip import offset_polygons

    cases = clip_cases(seed, n)
    offset = []
    for c in cases:        # one PyclipperOffset per case, any join/end type
        pco = pyclipper.PyclipperOffset()
        pco.AddPath(c["path"], c["join"], c["end"])
        offset.append([[list(pt) for pt in poly] for poly in pco.Execute(c["delta"])])
    # several paths in one offset object (what PyclipperOffset.Execute unions)
    multi = pyclipper.PyclipperOffset()
    for c in cases[:12]:
        multi.AddPath(c["path"], pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    multi_out = [[list(pt) for pt in poly] for poly in multi.Execute(7.5)]
    retto = offset_polygons([c["path"] for c in cases], [c["delta"] for c in cases])
    return {"cases": cases, "offset": offset, "multi": multi_out, "retto_clip": retto}


def bad_inputs(out_dir: Path) -> dict:
    sys.path[:0] = [str(ROOT / "tests" / "py"), str(ROOT / "tests" / "py" / "io")]
    from PIL import Image
    from retto import RettoError
    from retto.native.ort_worker import OrtWorker
    from test_bad_inputs import bad_files  # the native suite's own generators

    data = ROOT / "tests" / "data"
    image_paths = {p.stem: p for p in data.glob("*.png")} | {p.name: p for p in data.iterdir()}
    files = {name: content for name, (content, _code) in bad_files(image_paths).items()}
    buf = io.BytesIO()
    Image.new("RGB", (1, 1), (255, 255, 255)).save(buf, format="PNG")
    files["one_pixel.png"] = buf.getvalue()
    out_dir.mkdir(parents=True, exist_ok=True)
    session = OrtWorker(device="cpu").session()
    report = {}
    for name, content in files.items():
        (out_dir / name).write_bytes(content)
        try:
            res = session.run(content).to_dict()
            report[name] = {"lines": len(res["lines"]), "image": res["image"]}
        except RettoError as e:
            report[name] = e.to_dict()
    return report


def photo(path: Path) -> dict:
    """The labelled english_prose page blown up 5x (5500 x 8500) as a JPEG, like a phone photo of a page."""
    if not path.exists():
        from PIL import Image
        sys.path.insert(0, str(ROOT / "scripts" / "data"))
        import contextlib
        import make_testset
        with contextlib.redirect_stdout(sys.stderr):   # stdout carries the JSON answer
            make_testset.main()
        page = Image.open(make_testset.OUT / "english_prose.png").convert("RGB")
        path.parent.mkdir(parents=True, exist_ok=True)
        page.resize((page.width * 5, page.height * 5), Image.BICUBIC).save(path, quality=90)
    return {"path": str(path)}


def cli_runs(runs: list[list[str]]) -> list[dict]:
    import contextlib

    from retto.cli.main import main as cli_main

    out = []
    for argv in runs:
        buf = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
        with contextlib.redirect_stdout(buf):
            code = cli_main(argv)
            buf.flush()
        out.append({"code": code, "stdout": buf.buffer.getvalue().decode("utf-8")})
    return out


def main() -> None:
    cmd = sys.argv[1]
    if cmd == "clip-cases":
        out = clip_native(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "bad-inputs":
        out = bad_inputs(Path(sys.argv[2]))
    elif cmd == "cli-runs":
        out = cli_runs(json.loads(sys.argv[2]))
    elif cmd == "photo":
        out = photo(Path(sys.argv[2]))
    else:
        raise SystemExit(f"unknown command {cmd}")
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
