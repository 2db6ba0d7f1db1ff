"""The WebGL model variants (scripts/build/webgl_rewrite.py, scripts/build/webgl_models.py, retto.models.onnx_stamp), natively:
each rewritten model, stamped to a bucket shape, computes what the original computes (max abs diff <= 1e-5) on
random and on real inputs, contains no op WebGL lacks, and declares only static shapes."""
from __future__ import annotations

import json
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from refkit import ROOT, THREADS

sys.path.insert(0, str(ROOT / "scripts" / "build"))
import webgl_models  # noqa: E402
from webgl_rewrite import fix_shapes, rewrite_ops  # noqa: E402

from retto import Config  # noqa: E402

from retto.ops import cls

from retto.ops import det

from retto.models import sets as model_sets

from retto.ops import rec
from retto.browser.buckets import bucket_shapes, output_shape, smallest_fit, REC_WIDTHS, DET_SIDES  # noqa: E402
from retto.ops.crop import crop_line  # noqa: E402
from retto.io.image import decode  # noqa: E402
from retto.models.onnx_stamp import stamp_shapes  # noqa: E402

TOLERANCE = 1e-5
V4 = model_sets.load("ppocr-v4")
MAX_DIFFS: dict = {}     # printed at the end of the module: the report's numbers


def session(model_bytes: bytes) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = THREADS
    opts.log_severity_level = 3
    return ort.InferenceSession(model_bytes, sess_options=opts, providers=["CPUExecutionProvider"])


@pytest.fixture(scope="module")
def originals() -> dict:
    return {role: model_sets.read_file(V4, role) for role in ("det", "cls", "rec")}


@pytest.fixture(scope="module")
def variants(originals) -> dict:
    return {role: rewrite_ops(onnx.load_from_string(data))[0].SerializeToString() for role, data in originals.items()}


def compare(role, originals, variants, x: np.ndarray, label: str) -> None:
    """Original (dynamic dims) vs the variant stamped to exactly x's shape."""
    stamped = stamp_shapes(variants[role], x.shape, output_shape(role, x.shape))
    want = session(originals[role]).run(None, {"x": x})[0]
    got_sess = session(stamped)
    got = got_sess.run(None, {"x": x})[0]
    declared = [d.dim_value for d in onnx.load_from_string(stamped).graph.output[0].type.tensor_type.shape.dim]
    assert list(got.shape) == declared, f"{role}: ran to {got.shape}, the stamped model declares {declared}"
    diff = float(np.abs(got - want).max())
    MAX_DIFFS[f"{role} {label} {list(x.shape)}"] = diff
    assert diff <= TOLERANCE, f"{role} {label}: max abs diff {diff:.3g} > {TOLERANCE}"


def teardown_module(module):
    print("\nWebGL variant vs original, max abs diff:")
    for k, v in MAX_DIFFS.items():
        print(f"  {k}: {v:.3g}")


# --------------------------------------------------------------------------------------------- structure

def count_ops(model_bytes: bytes) -> dict:
    counts: dict = {}
    for n in onnx.load_from_string(model_bytes).graph.node:
        key = n.op_type
        if n.op_type == "Resize":
            mode = next((a.s for a in n.attribute if a.name == "mode"), b"nearest")
            key = f"Resize:{mode.decode()}"
        counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.mark.parametrize("role", ["det", "cls", "rec"])
def test_no_op_webgl_lacks_is_left(role, originals, variants):
    before, after = count_ops(originals[role]), count_ops(variants[role])
    assert before.get("HardSigmoid", 0) > 0          # the originals really have them (docs/facts.md §6)
    for op in ("HardSigmoid", "HardSwish", "Resize:nearest"):
        assert after.get(op, 0) == 0, f"{role}: {after.get(op)} {op} left"
    # every removed nearest Resize became exactly one ConvTranspose
    assert after.get("ConvTranspose", 0) - before.get("ConvTranspose", 0) == before.get("Resize:nearest", 0)
    assert after.get("Clip", 0) - before.get("Clip", 0) == before.get("HardSigmoid", 0)
    if role == "det":
        assert before["Resize:nearest"] == 6


@pytest.mark.parametrize("role", ["det", "cls", "rec"])
def test_every_conv_has_explicit_dilations(role, variants):
    for n in onnx.load_from_string(variants[role]).graph.node:
        if n.op_type in ("Conv", "ConvTranspose"):
            assert any(a.name == "dilations" for a in n.attribute), n.name


@pytest.mark.parametrize("role", ["det", "cls", "rec"])
def test_stamped_buckets_are_static_and_equal_onnx_own_edit(role, variants):
    """The pure-Python wire-level stamp (what the browser runs) gives byte for byte what the onnx package
    writes when it fixes the same shapes, for every bucket; every dim is then a number."""
    model = onnx.load_from_string(variants[role])
    for shape in bucket_shapes(role):
        out = output_shape(role, shape)
        stamped = stamp_shapes(variants[role], shape, out)
        assert stamped == fix_shapes(model, shape, out).SerializeToString(), f"{role} {shape}"
        if shape == bucket_shapes(role)[-1]:
            g = onnx.load_from_string(stamped).graph
            onnx.checker.check_model(onnx.load_from_string(stamped))
            for value in (*g.input, *g.output):
                dims = value.type.tensor_type.shape.dim
                assert dims and all(d.HasField("dim_value") and d.dim_value > 0 for d in dims), value


# --------------------------------------------------------------------------------------------- numerics

def test_det_matches_on_random_input(originals, variants):
    x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 736, 736)).astype(np.float32)
    compare("det", originals, variants, x, "random")


def test_cls_matches_on_random_input(originals, variants):
    x = np.random.default_rng(2).uniform(-1, 1, (6, 3, 48, 192)).astype(np.float32)
    compare("cls", originals, variants, x, "random")


def test_rec_matches_on_random_input(originals, variants):
    x = np.random.default_rng(3).uniform(-1, 1, (6, 3, 48, 320)).astype(np.float32)
    compare("rec", originals, variants, x, "random")


@pytest.fixture(scope="module")
def baiona_stages(image_paths, originals):
    """A real det input and real line crops, made by the pipeline's own modules (baiona needs no global resize:
    640x682 is within 30..2000 px and not letterboxed)."""
    cfg = Config()
    img = decode(image_paths["baiona"].read_bytes())
    x = det.preprocess(img, cfg.det)
    pred = session(originals["det"]).run(None, {"x": x})[0]
    quads, _ = det.postprocess(pred, img.shape[0], img.shape[1], cfg.det)
    crops = [crop_line(img, q) for q in quads]
    assert len(crops) >= 12
    return cfg, x, crops


def test_det_matches_on_real_input(baiona_stages, originals, variants):
    cfg, x, _ = baiona_stages
    compare("det", originals, variants, x, "baiona")
    # and padded into its bucket, as the WebGL runtime runs it
    h, w = x.shape[2:]
    padded = np.ones((1, 3, smallest_fit(h, DET_SIDES), smallest_fit(w, DET_SIDES)), np.float32)
    padded[:, :, :h, :w] = x
    compare("det", originals, variants, padded, "baiona in bucket")


def test_cls_matches_on_real_crops(baiona_stages, originals, variants):
    cfg, _, crops = baiona_stages
    for idx in cls.batches_by_aspect(crops, 6):
        if len(idx) == 6:
            compare("cls", originals, variants, cls.preprocess(crops, idx, cfg.cls), "baiona crops")


def test_rec_matches_on_real_crops(baiona_stages, originals, variants):
    cfg, _, crops = baiona_stages
    batches = [idx for idx in cls.batches_by_aspect(crops, 6) if len(idx) == 6]
    x = rec.preprocess(crops, batches[-1], cfg.rec)             # the widest full batch
    width = smallest_fit(x.shape[3], REC_WIDTHS)
    padded = np.zeros((6, 3, 48, width), np.float32)
    padded[..., :x.shape[3]] = x
    compare("rec", originals, variants, padded, "baiona crops in bucket")


# --------------------------------------------------------------------------------------------- each rewrite alone

def tiny_model(node, opset: int, in_shape, extra_nodes=()):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", "c", "h", "w"])
    graph = helper.make_graph([*extra_nodes, node], "t", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def run_both(model, x):
    rewritten, counts = rewrite_ops(model)
    a = session(model.SerializeToString()).run(None, {"x": x})[0]
    b = session(rewritten.SerializeToString()).run(None, {"x": x})[0]
    return a, b, counts, rewritten


def test_hardswish_becomes_x_times_clip():
    model = tiny_model(helper.make_node("HardSwish", ["x"], ["y"]), 14, [2, 3, 4, 5])
    x = np.linspace(-5, 5, 120, dtype=np.float32).reshape(2, 3, 4, 5)   # covers both saturated ends
    a, b, counts, rewritten = run_both(model, x)
    assert counts == {"HardSwish": 1}
    assert {n.op_type for n in rewritten.graph.node} == {"Constant", "Mul", "Add", "Clip"}
    assert np.abs(a - b).max() <= 1e-6


def test_hardsigmoid_keeps_its_own_alpha_beta():
    model = tiny_model(helper.make_node("HardSigmoid", ["x"], ["y"], alpha=0.37, beta=0.41), 12, [1, 2, 3, 4])
    x = np.linspace(-4, 4, 24, dtype=np.float32).reshape(1, 2, 3, 4)
    a, b, _, _ = run_both(model, x)
    assert np.abs(a - b).max() <= 1e-6


def resize_model(scale: int, coord: str, nearest_mode: str):
    scales = helper.make_node("Constant", [], ["scales"],
                              value=helper.make_tensor("s", TensorProto.FLOAT, [4], [1, 1, scale, scale]))
    roi = helper.make_node("Constant", [], ["roi"], value=helper.make_tensor("r", TensorProto.FLOAT, [0], []))
    node = helper.make_node("Resize", ["x", "roi", "scales"], ["y"], mode="nearest",
                            coordinate_transformation_mode=coord, nearest_mode=nearest_mode)
    return tiny_model(node, 12, [1, 3, 5, 7], extra_nodes=[scales, roi])


@pytest.mark.parametrize("scale", [2, 3, 8])
@pytest.mark.parametrize("coord,nearest_mode", [("asymmetric", "floor"), ("half_pixel", "round_prefer_floor")])
def test_nearest_resize_becomes_depthwise_ones_deconv(scale, coord, nearest_mode):
    x = np.random.default_rng(scale).normal(size=(1, 3, 5, 7)).astype(np.float32)
    a, b, counts, rewritten = run_both(resize_model(scale, coord, nearest_mode), x)
    assert counts == {"Resize": 1}
    deconv = [n for n in rewritten.graph.node if n.op_type == "ConvTranspose"]
    assert len(deconv) == 1
    attrs = {a.name: helper.get_attribute_value(a) for a in deconv[0].attribute}
    assert attrs["group"] == 3 and attrs["strides"] == [scale, scale]
    kernel = next(n for n in rewritten.graph.node if n.output[0] == deconv[0].input[1])
    assert np.array_equal(onnx.numpy_helper.to_array(kernel.attribute[0].t), np.ones((3, 1, scale, scale)))
    assert a.shape == (1, 3, 5 * scale, 7 * scale)
    assert np.array_equal(a, b)                       # a pixel repeat is exact, not approximately equal


def test_resize_that_is_not_a_pixel_repeat_is_refused():
    with pytest.raises(ValueError, match="not a plain pixel repeat"):
        rewrite_ops(resize_model(2, "asymmetric", "round_prefer_floor"))


def test_conv_without_dilations_gets_them():
    w = helper.make_node("Constant", [], ["w"],
                         value=helper.make_tensor("w", TensorProto.FLOAT, [2, 3, 3, 3], [0.1] * 54))
    conv = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    x = np.random.default_rng(0).normal(size=(1, 3, 6, 6)).astype(np.float32)
    a, b, counts, rewritten = run_both(tiny_model(conv, 12, [1, 3, 6, 6], extra_nodes=[w]), x)
    node = next(n for n in rewritten.graph.node if n.op_type == "Conv")
    assert {a.name: helper.get_attribute_value(a) for a in node.attribute}["dilations"] == [1, 1]
    assert np.array_equal(a, b)


# --------------------------------------------------------------------------------------------- the build CLI

def test_build_cli_writes_variants_and_listing_idempotently(tmp_path, variants):
    out = tmp_path / "webgl"
    webgl_models.main(["--out", str(out), "--set", "ppocr-v4"])
    listing = json.loads((out / "webgl.json").read_text())
    assert set(listing["models"]) == {"det", "cls", "rec"}
    for role, entry in listing["models"].items():
        data = (out / entry["file"]).read_bytes()
        assert data == variants[role]
        assert entry["sha256"] == webgl_models.sha256(data) and entry["size"] == len(data)
        assert [tuple(b["input"]) for b in entry["buckets"]] == bucket_shapes(role)
        last = entry["buckets"][-1]
        assert webgl_models.sha256(stamp_shapes(data, last["input"], last["output"])) == last["sha256"]
        assert None not in last["output"]
    mtimes = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    webgl_models.main(["--out", str(out), "--set", "ppocr-v4"])
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == mtimes
