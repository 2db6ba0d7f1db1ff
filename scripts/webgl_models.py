#!/usr/bin/env python3
"""Build the WebGL variants of the models: `python scripts/webgl_models.py --out DIR`.

Writes, per model role, one rewritten graph `<model>.webgl.onnx` (ops WebGL lacks replaced, see
webgl_rewrite.py; dims still symbolic) and `webgl.json`: file, size and sha256 of each variant, plus every bucket
input shape a BucketWorker can send, its output shape and the sha256 of the model stamped to it. The browser
stamps a bucket's shape into the bytes it loaded with `retto.onnx_stamp.stamp_shapes(model, input, output)`
and may compare the sha256: one file per model ships instead of one per bucket (the rec model is 11 MB and
has 7 buckets). Idempotent: files whose content is unchanged are not rewritten.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import onnx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "scripts"))
from retto import buckets  # noqa: E402
from retto.onnx_stamp import stamp_shapes  # noqa: E402
from webgl_rewrite import leftover_unsupported, rewrite_ops  # noqa: E402

MANIFEST_NAME = "webgl.json"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def put(path: Path, data: bytes) -> None:
    if path.exists() and path.read_bytes() == data:
        return
    path.write_bytes(data)


def variant_name(source_file: str) -> str:
    return source_file[:-len(".onnx")] + ".webgl.onnx"


def build_variant(role: str, source: bytes) -> tuple[bytes, dict]:
    model, replaced = rewrite_ops(onnx.load_from_string(source))
    left = leftover_unsupported(model)
    if left:
        raise SystemExit(f"{role}: still unsupported on WebGL after rewriting: {left}")
    return model.SerializeToString(), replaced


def bucket_entries(role: str, variant: bytes) -> list[dict]:
    declared = [d.dim_value if d.HasField("dim_value") else None
                for d in onnx.load_from_string(variant).graph.output[0].type.tensor_type.shape.dim]
    entries = []
    for shape in buckets.bucket_shapes(role):
        out = buckets.output_shape(role, shape)
        stamped = stamp_shapes(variant, shape, out)
        entries.append({"input": list(shape), "output": [declared[i] if s is None else s for i, s in enumerate(out)],
                        "sha256": sha256(stamped)})
    return entries


def build(out_dir: Path, models_dir: Path) -> dict:
    manifest = json.loads((models_dir / "manifest.json").read_text())
    out_dir.mkdir(parents=True, exist_ok=True)
    result = {"format": 1, "set": manifest.get("set"),
              "buckets": {"det_sides": list(buckets.DET_SIDES), "rec_widths": list(buckets.REC_WIDTHS),
                          "batch": buckets.BATCH},
              "stamp": "retto.onnx_stamp.stamp_shapes(model_bytes, bucket.input, bucket.output)",
              "models": {}}
    for role, entry in manifest["models"].items():
        path = models_dir / entry["file"]
        if not path.exists():
            raise SystemExit(f"{path} missing: run python3 scripts/fetch_models.py")
        source = path.read_bytes()
        if sha256(source) != entry["sha256"]:
            raise SystemExit(f"{path}: sha256 differs from models/manifest.json; refusing it")
        variant, replaced = build_variant(role, source)
        name = variant_name(entry["file"])
        put(out_dir / name, variant)
        result["models"][role] = {"file": name, "size": len(variant), "sha256": sha256(variant),
                                  "source_sha256": entry["sha256"], "replaced": replaced,
                                  "buckets": bucket_entries(role, variant)}
        print(f"{role}: {name} {len(variant) / 1e6:.1f} MB, replaced {replaced}, "
              f"{len(result['models'][role]['buckets'])} buckets")
    put(out_dir / MANIFEST_NAME, (json.dumps(result, indent=1) + "\n").encode())
    return result


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="output folder (e.g. web/public/assets/models/webgl)")
    ap.add_argument("--models", type=Path, default=ROOT / "models", help="folder with manifest.json and the models")
    args = ap.parse_args(argv)
    build(args.out, args.models)


if __name__ == "__main__":
    main()
