"""Models pre-optimised at set-up by native onnxruntime, so the browser makes its wasm sessions faster.

onnxruntime-web spends much of a session's creation optimising the graph (constant folding, Conv+activation,
Gelu and LayerNorm fusions, ...). Done once here by native onnxruntime at level EXTENDED, the browser's wasm
sessions are made in about half the time (scripts/build/check_optimised_models.mjs: e.g. the PP-OCRv6 small rec
101 -> 30 ms, PP-OCRv4 rec 164 -> 115 ms, single-threaded in Node).
The level is EXTENDED, not ALL: ALL adds NCHWc blocking sized for the native CPU's AVX kernels. The browser keeps
its own level 'all' on the shipped model: what is left for it to do is its layout pass, which native onnxruntime
cannot save portably. Loading with optimisation off ('disabled') was measured too: it changes the last bits of
the PP-OCRv6 det and rec outputs (wasm's layout pass no longer runs) and did not make det faster, while 'all' on
the pre-optimised model gives outputs bit-identical to the source model's on every shipped model.

Each result is kept in .cache/ort-optimised/, named by the source model's sha256, the native onnxruntime version
and the level, so a second set-up reuses it; a cached file is re-checked against the sha256 recorded beside it.
The graph's ONNX metadata (the rec dictionary is read from it) is kept by onnxruntime's serializer; this module
checks that too.
"""
from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "ort-optimised"
LEVEL = "extended"  # written into the asset manifest beside each shipped model


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _metadata(model_bytes: bytes) -> dict:
    import onnx

    return {p.key: p.value for p in onnx.load_from_string(model_bytes).metadata_props}


def optimise(src: Path, src_sha256: str) -> Path:
    """The optimised copy of the model at src (whose sha256 the caller has checked): from the cache when it was
    made before by this onnxruntime version, else made now. Returns its path."""
    import onnxruntime as ort

    stem = f"{src_sha256}-ort{ort.__version__}-{LEVEL}"
    out, record = CACHE / f"{stem}.onnx", CACHE / f"{stem}.json"
    if out.exists() and record.exists():
        if _sha256(out.read_bytes()) == json.loads(record.read_text())["sha256"]:
            return out
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        made = Path(tmp) / "model.onnx"
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        opts.optimized_model_filepath = str(made)
        opts.log_severity_level = 3
        ort.InferenceSession(str(src), opts, providers=["CPUExecutionProvider"])
        data = made.read_bytes()
        if _metadata(data) != _metadata(src.read_bytes()):
            raise SystemExit(f"{src}: the optimised model lost its ONNX metadata; refusing it")
        made.replace(out)
    record.write_text(json.dumps({"source_sha256": src_sha256, "onnxruntime": ort.__version__, "level": LEVEL,
                                  "sha256": _sha256(data), "size": len(data)}) + "\n")
    return out
