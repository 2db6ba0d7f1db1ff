#!/usr/bin/env python3
"""Build the WebGL variants of a model set: `python scripts/build/webgl_models.py --set NAME --out DIR`.

Writes, per model role, one rewritten graph `<model>.webgl.onnx` (ops WebGL lacks replaced, see
webgl_rewrite.py; dims still symbolic) and `webgl.json`: file, size and sha256 of each variant, plus every bucket
input shape a BucketWorker can send, its output shape and the sha256 of the model stamped to it. The browser
stamps a bucket's shape into the bytes it loaded with `retto.models.onnx_stamp.stamp_shapes(model, input, output)`
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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "scripts" / "build"))
from retto.browser import buckets  # noqa: E402
from retto.models import sets as model_sets
from retto.models.onnx_stamp import stamp_shapes  # noqa: E402
from webgl_rewrite import leftover_unsupported, rewrite_ops  # noqa: E402

MANIFEST_NAME = "webgl.json"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def put(path: Path, data: bytes) -> None:
    if path.exists() and path.read_bytes() == data:
        return
    path.write_bytes(data)


def variant_name(role: str) -> str:
    return f"{role}.webgl.onnx"


def build_variant(role: str, source: bytes) -> tuple[bytes, dict]:
    model, replaced = rewrite_ops(onnx.load_from_string(source))
    left = leftover_unsupported(model)
    if left:
        raise SystemExit(f"{role}: still unsupported on WebGL after rewriting: {left}")
    return model.SerializeToString(), replaced


def bucket_entries(role: str, variant: bytes, ladder: dict) -> list[dict]:
    declared = [d.dim_value if d.HasField("dim_value") else None
                for d in onnx.load_from_string(variant).graph.output[0].type.tensor_type.shape.dim]
    entries = []
    for shape in buckets.bucket_shapes(role, **ladder):
        out = buckets.output_shape(role, shape)
        stamped = stamp_shapes(variant, shape, out)
        entries.append({"input": list(shape), "output": [declared[i] if s is None else s for i, s in enumerate(out)],
                        "sha256": sha256(stamped)})
    return entries


def build(out_dir: Path, models_dir: Path, set_name: str | None = None) -> dict:
    """The WebGL variants of one model set (None: the default set), from its verified fetched files."""
    model_set = model_sets.load(set_name, models_dir)
    if not model_set.webgl.get("supported"):
        raise SystemExit(f"{model_set.name}: no WebGL variant ({model_set.webgl.get('reason', 'unsupported')})")
    ladder = buckets.ladder_for(model_set)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = {"format": 2, "set": model_set.name, "buckets": ladder,
              "stamp": "retto.models.onnx_stamp.stamp_shapes(model_bytes, bucket.input, bucket.output)",
              "models": {}}
    for role in buckets.ROLES:
        source = model_sets.read_file(model_set, role, models_dir)
        variant, replaced = build_variant(role, source)
        name = variant_name(role)
        put(out_dir / name, variant)
        result["models"][role] = {"file": name, "size": len(variant), "sha256": sha256(variant),
                                  "source_sha256": model_set.files[role]["sha256"], "replaced": replaced,
                                  "buckets": bucket_entries(role, variant, ladder)}
        print(f"{model_set.name} {role}: {name} {len(variant) / 1e6:.1f} MB, replaced {replaced}, "
              f"{len(result['models'][role]['buckets'])} buckets")
    put(out_dir / MANIFEST_NAME, (json.dumps(result, indent=1) + "\n").encode())
    return result


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="output folder (e.g. web/public/assets/models/webgl)")
    ap.add_argument("--models", type=Path, default=ROOT / "models", help="folder with sets/ and the fetched models")
    ap.add_argument("--set", help="model set name (default: the default set)")
    args = ap.parse_args(argv)
    build(args.out, args.models, args.set)


if __name__ == "__main__":
    main()
