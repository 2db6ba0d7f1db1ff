"""ONNX -> .tflite for scripts/bench/tflite_models.py (runs in its converter venv: onnx2tf, ai-edge-litert).
Why each step is needed is in that script's docstring."""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

SHAPE_OPS = ("Squeeze", "Unsqueeze", "Reshape")


def _producers(graph):
    return {o: n for n in graph.node for o in n.output}


def _const_target_for_concat(model, batch: int) -> None:
    """A Reshape whose target is Concat(one-element pieces) with exactly one computed piece: constant target."""
    init = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    prod = _producers(model.graph)

    def source(name):
        while name in prod and prod[name].op_type in ("Identity", "Cast"):
            name = prod[name].input[0]
        return name

    def const(name):
        name = source(name)
        if name in init:
            return init[name].reshape(-1)
        p = prod.get(name)
        if p is not None and p.op_type == "Unsqueeze" and source(p.input[0]) in init:
            return init[source(p.input[0])].reshape(-1)
        if p is not None and p.op_type == "Constant":
            return numpy_helper.to_array(p.attribute[0].t).reshape(-1)
        return None

    for n in model.graph.node:
        if n.op_type != "Reshape":
            continue
        concat = prod.get(source(n.input[1]))
        if concat is None or concat.op_type != "Concat":
            continue
        pieces = [const(x) for x in concat.input]
        if sum(p is None for p in pieces) != 1 or any(p is not None and p.size != 1 for p in pieces):
            continue
        target = [-1 if p is None else int(p[0]) for p in pieces]
        if target[0] == 0:  # ONNX's "copy this dimension": the batch, which is fixed here
            target[0] = batch
        if 0 in target or target.count(-1) > 1:
            continue
        name = n.output[0] + "__target"
        model.graph.initializer.append(numpy_helper.from_array(np.array(target, np.int64), name))
        n.input[1] = name


def static_reshapes(src: Path, dst: Path, batch: int) -> None:
    """Fix the batch; give each shape op with one unknown output dimension a constant target (-1 there)."""
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference

    model = onnx.load(src)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[0].ClearField("dim_param")
    dims[0].dim_value = batch
    for o in model.graph.output:
        o.type.tensor_type.ClearField("shape")
    del model.graph.value_info[:]
    _const_target_for_concat(model, batch)
    try:
        inferred = SymbolicShapeInference.infer_shapes(model, auto_merge=True)
        info = {v.name: v for v in [*inferred.graph.value_info, *inferred.graph.input, *inferred.graph.output]}
        model = inferred  # its outputs keep their inferred shapes: onnx2tf's reshapes came out wrong without them
        del model.graph.value_info[:]
    except Exception:  # noqa: BLE001 -- e.g. det's ConvTranspose: no shape op there needs a constant target
        info = {}

    def out_dims(name):
        v = info.get(name)
        if v is None or not v.type.tensor_type.HasField("shape"):
            return None
        return [d.dim_value if d.HasField("dim_value") else None for d in v.type.tensor_type.shape.dim]

    nodes = []
    for n in model.graph.node:
        od = out_dims(n.output[0]) if n.op_type in SHAPE_OPS else None
        if od is not None and od.count(None) == 1:
            name = n.output[0] + "__shape"
            model.graph.initializer.append(numpy_helper.from_array(
                np.array([-1 if d is None else d for d in od], np.int64), name))
            nodes.append(helper.make_node("Reshape", [n.input[0], name], list(n.output), name=n.name + "_static"))
        else:
            nodes.append(n)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.save(model, dst)


def onnx2tf_file(src: Path, out_dir: Path) -> Path:
    import onnx2tf
    from onnx2tf.tflite_builder.op_builders import pool

    # Padding a pool's input up to its window is decided at the placeholder width (1): wrong at real widths.
    pool._calc_min_valid_window_deficit_pads_2d = lambda **_: [0, 0, 0, 0]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "model.onnx"
        shutil.copyfile(src, work)  # onnx2tf rewrites its input file in place
        name = onnx.load(work).graph.input[0].name
        log = io.StringIO()
        try:
            with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):  # its progress bars
                onnx2tf.convert(input_onnx_file_path=str(work), output_folder_path=str(Path(tmp) / "out"),
                                tflite_backend="flatbuffer_direct", keep_ncw_or_nchw_or_ncdhw_input_names=[name],
                                non_verbose=True)
        except BaseException:
            print(log.getvalue()[-4000:])
            raise
        made = Path(tmp) / "out" / "model_float32.tflite"
        out_dir.mkdir(parents=True, exist_ok=True)
        dst = out_dir / made.name
        shutil.copyfile(made, dst)
        return dst


def check(src: Path, out: Path, files: dict, calls: list, inputs: Path, index: dict) -> dict:
    """Run every call on the .tflite (natively, XNNPACK) and on onnxruntime; note each call's output shape."""
    import onnxruntime as ort
    from ai_edge_litert.interpreter import Interpreter

    session = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"])
    interpreters = {b: Interpreter(model_path=str(out / f)) for b, f in files.items()}
    max_diff, agree, steps = 0.0, 0, 0
    for c in calls:
        x = np.fromfile(inputs / f"{c['i']:03d}.bin", dtype=np.float32).reshape(c["dims"])
        want = session.run(None, {session.get_inputs()[0].name: x})[0]
        it = interpreters.get("*") or interpreters[str(c["dims"][0])]
        i = it.get_input_details()[0]["index"]
        it.resize_tensor_input(i, x.shape)
        it.allocate_tensors()
        it.set_tensor(i, x)
        it.invoke()
        got = it.get_tensor(it.get_output_details()[0]["index"])
        shape = list(map(int, got.shape))
        got = got.reshape(want.shape) if got.size == want.size else got  # det: NHWC [1,H,W,1] is [1,1,H,W]
        if got.shape != want.shape:
            raise RuntimeError(f"call {c['i']}: output {got.shape}, onnxruntime {want.shape}")
        max_diff = max(max_diff, float(np.abs(got - want).max()))
        if want.ndim == 3:  # recognisers: [N, T, classes]
            agree += int((got.argmax(-1) == want.argmax(-1)).sum())
            steps += want.shape[0] * want.shape[1]
        index["calls"][str(c["i"])] = {"out": shape}
    return {"calls": len(calls), "max_diff": max_diff, "argmax_agree": agree / steps if steps else 1.0}


def convert_all(sources: dict, meta: dict, inputs: Path, out: Path, recipe: int) -> dict:
    index = {"recipe": recipe, "roles": {}, "calls": {}}
    old = json.loads((out / "index.json").read_text()) if (out / "index.json").exists() else {}
    for role, src in sources.items():
        digest = hashlib.sha256(src.read_bytes()).hexdigest()
        calls = [c for c in meta["calls"] if c["role"] == role]
        prev = old.get("roles", {}).get(role, {})
        reuse = old.get("recipe") == recipe and prev.get("sha256") == digest
        # First the model as it is (every dimension free); if XNNPACK cannot prepare it at the calls' shapes, one
        # file per batch size with constant reshape targets.
        tries = [["*"], sorted({str(c["dims"][0]) for c in calls})]
        if reuse and prev.get("files") and "*" not in prev["files"]:
            tries = tries[1:]  # the last run found the model refused as it is
        for batches in tries:
            files = {}
            for b in batches:
                name = f"{role}-b{b if b != '*' else 'any'}.tflite"
                if not (reuse and prev.get("files", {}).get(b) == name and (out / name).exists()):
                    with tempfile.TemporaryDirectory() as tmp:
                        fixed = Path(tmp) / "fixed.onnx"
                        if b == "*":
                            shutil.copyfile(src, fixed)
                        else:
                            static_reshapes(src, fixed, int(b))
                        made = onnx2tf_file(fixed, Path(tmp) / "out")
                        out.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(made, out / name)
                files[b] = name
            try:
                index["roles"][role] = dict(sha256=digest, files=files, **check(src, out, files, calls, inputs, index))
                break
            except RuntimeError as e:  # XNNPACK refused a shape, or an op it has no kernel for
                print(f"{role}: {'as it is' if batches == ['*'] else 'per batch size'}: {str(e).splitlines()[0]}")
        else:
            raise SystemExit(f"{role}: no conversion runs on the recorded calls")
    return index
