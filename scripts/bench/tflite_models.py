"""Benchmark helper (not a test): the default set's models as LiteRT (.tflite) files, for
scripts/bench/litert_vs_ort.mjs, checked natively against onnxruntime on the recorded calls of the five bench pages
(scripts/bench/record_model_inputs.py).

The converter is onnx2tf 2.6.9's flatbuffer_direct backend (no TensorFlow). It declares Python >= 3.12 but runs on
3.11, so it is installed without its declared pins into a venv of its own (.cache/tflite-venv), apart from the
project's. Three things make its output right for our models' dynamic shapes:
- the batch dimension is fixed, one file per batch size the calls use: a Squeeze or Reshape with two unknown
  dimensions (batch and width) becomes a reshape that XNNPACK refuses to prepare;
- every Squeeze, Unsqueeze and Reshape whose output has one unknown dimension gets a constant target shape with -1
  there (onnxruntime's symbolic shape inference finds them), and a Reshape whose target is a Concat of one-element
  pieces, one of them computed, likewise;
- a pooling window larger than the conversion's placeholder input (width 1) makes onnx2tf pad the input to fit it.
  That padding is right only at the placeholder shape (it turned the recognisers' outputs into noise), so it is
  turned off: our inputs are never narrower than a window.
The models keep NCHW inputs (onnx2tf inserts the transpose), so the inputs the pipeline records feed both engines.
Every call's output is compared with onnxruntime's (largest difference; for the recognisers, the share of time
steps whose best class agrees), and its shape is written down: LiteRT.js compiles a model for one input shape and
takes its output buffers' sizes from the file, so the benchmark stamps both shapes into a copy of the file per
input shape.
    .venv/bin/python scripts/bench/tflite_models.py [--inputs /tmp/retto-model-inputs] [--roles det,cls,rec,reread]
Writes .cache/tflite/<set>/ (the .tflite files and index.json); converted files are reused while their source's
sha256 and this script's recipe are unchanged."""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".cache" / "tflite-venv"
RECIPE = 1  # bump when the conversion changes, so cached files are made again
ONNX2TF = ("onnx2tf", "2.6.9", "onnx2tf-2.6.9-py3-none-any.whl",
           "98515924d59b22d530eb2e958fe660c5b2beef1863ef20b073ba385e78667be4")
PINS = ["ai-edge-litert==2.3.0", "flatbuffers==25.12.19", "ml_dtypes==0.7.0", "numpy==2.4.6", "onnx==1.23.2",
        "onnxoptimizer==0.4.2", "onnxruntime==1.32.0", "onnxsim==0.8.1", "protobuf==7.36.2", "psutil==7.2.2",
        "sne4onnx==2.0.1", "sng4onnx==2.0.1", "sympy==1.14.0", "tqdm==4.70.1"]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ensure_venv() -> Path:
    py = VENV / "bin" / "python"
    stamp = VENV / "ready.json"
    want = {"onnx2tf": ONNX2TF[1], "pins": PINS}
    if stamp.exists() and json.loads(stamp.read_text()) == want:
        return py
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
    pip = [str(VENV / "bin" / "pip"), "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, *PINS], check=True)
    wheels = VENV / "wheels"
    subprocess.run([str(VENV / "bin" / "pip"), "download", "-q", "--no-deps", "--only-binary=:all:",
                    "--python-version", "3.12", "-d", str(wheels), f"{ONNX2TF[0]}=={ONNX2TF[1]}"], check=True)
    wheel = wheels / ONNX2TF[2]
    if sha256(wheel) != ONNX2TF[3]:
        raise SystemExit(f"{wheel.name}: sha256 {sha256(wheel)} is not the pinned {ONNX2TF[3]}")
    subprocess.run([*pip, "--no-deps", "--ignore-requires-python", str(wheel)], check=True)
    stamp.write_text(json.dumps(want))
    return py


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--inputs", default="/tmp/retto-model-inputs")
    ap.add_argument("--roles", default="det,cls,rec,reread")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if not a.inside:
        py = ensure_venv()
        env = dict(os.environ, PATH=f"{VENV / 'bin'}:{os.environ['PATH']}")  # onnx2tf finds onnxsim on PATH
        with tempfile.TemporaryDirectory() as cwd:  # the shape inference leaves temporary files where it runs
            raise SystemExit(subprocess.run([str(py), __file__, "--inside", "--inputs", str(Path(a.inputs).resolve()),
                                             "--roles", a.roles], env=env, cwd=cwd).returncode)
    from tflite_convert import convert_all  # in the converter's venv only

    meta = json.loads((Path(a.inputs) / "meta.json").read_text())
    manifest = json.loads((ROOT / "web" / "public" / "assets" / "manifest.json").read_text())
    files = manifest["model_sets"][meta["set"]]["files"]
    out = ROOT / ".cache" / "tflite" / meta["set"]
    # The registry's model, not the app's copy optimised by onnxruntime (its fused ops have no .tflite form).
    sources = {role: ROOT / "models" / meta["set"] / f"{role}.onnx" for role in a.roles.split(",")}
    for role, src in sources.items():
        if sha256(src) != files[role].get("source_sha256", files[role]["sha256"]):
            raise SystemExit(f"{src}: not the {role} model the app's manifest was built from")
    index = convert_all(sources, meta, Path(a.inputs), out, RECIPE)
    (out / "index.json").write_text(json.dumps(index, indent=1))
    for role, r in index["roles"].items():
        print(f"{role}: {len(r['files'])} file(s) for batch sizes {sorted(r['files'])}; {r['calls']} calls;"
              f" largest difference {r['max_diff']:.2e}; best class agrees on {r['argmax_agree']:.4%} of steps")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))
    main()
