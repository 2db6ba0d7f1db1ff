"""Benchmark helper (not a test): record every model call's input of the default set reading the five pages of
scripts/bench/vs_tesseract.mjs natively, so scripts/bench/inference.mjs can time onnxruntime-web and native
onnxruntime on exactly those inputs. Writes <out>/NNN.bin (float32, C order) and <out>/meta.json
([{i, role, dims}]); about 230 MB for the five pages.
    .venv/bin/python scripts/bench/record_model_inputs.py [--out /tmp/retto-model-inputs] [--pages a,b] [--config JSON]"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from retto.native.ort_worker import OrtWorker

PAGES = "english_prose,english_two_column,invoice,french,photo_page"
PAGE_DIR = Path(__file__).resolve().parents[2] / "tests" / "testset" / "pages"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/retto-model-inputs")
    ap.add_argument("--pages", default=PAGES)
    ap.add_argument("--config", default=None, help="a partial config (JSON) over the set's settings")
    a = ap.parse_args()
    worker = OrtWorker(threads=2)
    calls = []
    run = worker._session_run

    def recording(role, x, every=False):  # the single place every model call of OrtWorker passes through
        calls.append((role, np.ascontiguousarray(x, dtype=np.float32).copy()))
        return run(role, x, every)

    worker._session_run = recording
    session = worker.session(json.loads(a.config) if a.config else None)
    for page in a.pages.split(","):
        image = json.loads((PAGE_DIR / f"{page}.gt.json").read_text())["image"]
        session.run((PAGE_DIR / image).read_bytes())
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = []
    for i, (role, x) in enumerate(calls):
        x.tofile(out / f"{i:03d}.bin")
        meta.append({"i": i, "role": role, "dims": list(x.shape)})
    (out / "meta.json").write_text(json.dumps({"set": worker.model_set.name, "calls": meta}))
    print(f"{len(meta)} calls recorded into {out}")


if __name__ == "__main__":
    main()
