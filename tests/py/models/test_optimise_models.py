"""The pre-optimised models the browser ships (scripts/build/optimise_models.py), natively: the optimised cls model,
loaded with graph optimisation off (as the wasm sessions load it), gives bit-identical outputs to the original
model optimised at load time to the same level (EXTENDED: natively ALL adds NCHWc blocking for this CPU's AVX
kernels, which changes the last bits; the wasm provider has no such kernels); the ONNX metadata survives (the rec dictionary lives there); the
cache is keyed by the source's sha256 (a second set-up reuses the file, a corrupted cached file is made again)."""
from __future__ import annotations

import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from refkit import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "build"))
import optimise_models  # noqa: E402

from retto.models import sets as model_sets  # noqa: E402

V4 = model_sets.load("ppocr-v4")


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(optimise_models, "CACHE", tmp_path)
    return tmp_path


def _run(path, level, x):
    opts = ort.SessionOptions()
    opts.graph_optimization_level = level
    opts.intra_op_num_threads = 1
    s = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    return s.run(None, {s.get_inputs()[0].name: x})[0]


def test_optimised_cls_is_bit_identical_and_cached_by_source_sha256(cache):
    src = model_sets.set_dir(V4, ROOT / "models") / "cls.onnx"
    made = optimise_models.optimise(src, V4.files["cls"]["sha256"])
    assert V4.files["cls"]["sha256"] in made.name and made.parent == cache
    graph = onnx.load(str(made)).graph
    assert len(graph.node) < len(onnx.load(str(src)).graph.node)  # fusions happened
    x = np.random.default_rng(7).uniform(-1, 1, (3, 3, 48, 192)).astype(np.float32)
    want = _run(src, ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, x)
    got = _run(made, ort.GraphOptimizationLevel.ORT_DISABLE_ALL, x)
    assert got.tobytes() == want.tobytes()

    stamp = made.stat().st_mtime_ns
    assert optimise_models.optimise(src, V4.files["cls"]["sha256"]) == made and made.stat().st_mtime_ns == stamp
    made.write_bytes(b"not a model")  # a damaged cache entry is made again, never shipped
    again = optimise_models.optimise(src, V4.files["cls"]["sha256"])
    assert _run(again, ort.GraphOptimizationLevel.ORT_DISABLE_ALL, x).tobytes() == want.tobytes()


def test_optimised_rec_keeps_its_dictionary_metadata(cache):
    src = model_sets.set_dir(V4, ROOT / "models") / "rec.onnx"
    made = optimise_models.optimise(src, V4.files["rec"]["sha256"])
    meta = {p.key: p.value for p in onnx.load(str(made), load_external_data=False).metadata_props}
    assert len(meta["character"].splitlines()) == 6623  # docs/facts.md §3: the PP-OCRv4 dictionary
