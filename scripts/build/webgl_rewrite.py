"""Graph rewrites that make the PP-OCR ONNX models loadable by onnxruntime-web's WebGL backend (docs/facts.md §6).

WebGL lacks HardSigmoid, HardSwish and nearest Resize, so each is replaced by ops it has, computing the same
values: HardSigmoid(x) = Clip(alpha*x + beta, 0, 1); HardSwish(x) = x * HardSigmoid(x) with alpha 1/6, beta 1/2;
a nearest Resize by an integer factor s = a depthwise ConvTranspose with an all-ones s x s kernel and stride s
(every output pixel receives exactly one input pixel, times 1). Conv nodes also get an explicit `dilations`
(JSEP WebGPU refuses Conv without it). Fixing the dynamic input dims is separate: `fix_input_shape`.

Build-time only (needs the `onnx` package); the browser never runs this.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

# Resize coordinate modes under which nearest upsampling by an integer factor s reads input[i // s] exactly.
# asymmetric+floor: x = i/s, floor -> i//s. half_pixel: x = i//s + ((i%s)+0.5)/s - 0.5, whose fractional part
# stays strictly inside (-0.5, 0.5), so any round-half mode gives i//s (floor/ceil modes would not).
_EXACT_NEAREST = {
    ("asymmetric", "floor"),
    ("half_pixel", "round_prefer_floor"), ("half_pixel", "round_prefer_ceil"),
    ("pytorch_half_pixel", "round_prefer_floor"), ("pytorch_half_pixel", "round_prefer_ceil"),
}
UNSUPPORTED_ON_WEBGL = ("HardSigmoid", "HardSwish")


class Rewriter:
    """Rebuilds a graph's node list, replacing nodes; constants are added as Constant nodes, like the weights."""

    def __init__(self, model: onnx.ModelProto):
        self.model = model
        self.graph = model.graph
        self.producers = {out: n for n in self.graph.node for out in n.output}
        self.initializers = {t.name: t for t in self.graph.initializer}
        self.taken = {name for n in self.graph.node for name in (*n.input, *n.output, n.name)}
        self.taken |= {v.name for v in (*self.graph.input, *self.graph.output, *self.graph.initializer)}
        self._channels = None
        self.counts: dict[str, int] = {}

    def fresh(self, base: str) -> str:
        name, k = f"webgl/{base}", 0
        while name in self.taken:
            k += 1
            name = f"webgl/{base}/{k}"
        self.taken.add(name)
        return name

    def constant(self, out: list, value: np.ndarray, base: str) -> str:
        name = self.fresh(base)
        out.append(helper.make_node("Constant", [], [name], name=name,
                                    value=numpy_helper.from_array(np.asarray(value), name)))
        return name

    def constant_value(self, name: str) -> np.ndarray | None:
        if name in self.initializers:
            return numpy_helper.to_array(self.initializers[name])
        node = self.producers.get(name)
        if node is not None and node.op_type == "Constant" and node.attribute[0].name == "value":
            return numpy_helper.to_array(node.attribute[0].t)
        return None

    def channels(self, tensor: str) -> int:
        """Channel count (dim 1) of an NCHW tensor, from ONNX shape inference (C never depends on H, W)."""
        if self._channels is None:
            inferred = shape_inference.infer_shapes(self.model)
            self._channels = {}
            for v in (*inferred.graph.value_info, *inferred.graph.input, *inferred.graph.output):
                dims = v.type.tensor_type.shape.dim
                if len(dims) == 4 and dims[1].HasField("dim_value"):
                    self._channels[v.name] = dims[1].dim_value
        if tensor not in self._channels:
            raise ValueError(f"shape inference gives no channel count for {tensor!r}; cannot build its ConvTranspose")
        return self._channels[tensor]

    # ------------------------------------------------------------------------------------------ replacements

    def hard_sigmoid(self, out: list, x: str, y: str, alpha: float, beta: float, base: str) -> None:
        scaled = self.fresh(base + "/scaled")
        shifted = self.fresh(base + "/shifted")
        a = self.constant(out, np.array(alpha, np.float32), base + "/alpha")
        b = self.constant(out, np.array(beta, np.float32), base + "/beta")
        lo = self.constant(out, np.array(0.0, np.float32), base + "/zero")
        hi = self.constant(out, np.array(1.0, np.float32), base + "/one")
        out.append(helper.make_node("Mul", [x, a], [scaled], name=self.fresh(base + "/mul")))
        out.append(helper.make_node("Add", [scaled, b], [shifted], name=self.fresh(base + "/add")))
        out.append(helper.make_node("Clip", [shifted, lo, hi], [y], name=self.fresh(base + "/clip")))

    def replace(self, node: onnx.NodeProto, out: list) -> bool:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        base = node.name or node.output[0]
        if node.op_type == "HardSigmoid":
            self.hard_sigmoid(out, node.input[0], node.output[0], attrs.get("alpha", 0.2), attrs.get("beta", 0.5),
                              base)
        elif node.op_type == "HardSwish":
            gate = self.fresh(base + "/gate")
            self.hard_sigmoid(out, node.input[0], gate, 1.0 / 6.0, 0.5, base)
            out.append(helper.make_node("Mul", [node.input[0], gate], [node.output[0]], name=self.fresh(base)))
        elif node.op_type == "Resize" and attrs.get("mode", b"nearest") == b"nearest":
            self.nearest_resize(node, attrs, out, base)
        elif node.op_type == "Conv" and "dilations" not in attrs:
            kernel = attrs.get("kernel_shape")
            rank = len(kernel) if kernel else 2
            fixed = onnx.NodeProto()
            fixed.CopyFrom(node)
            fixed.attribute.append(helper.make_attribute("dilations", [1] * rank))
            out.append(fixed)
        else:
            return False
        self.counts[node.op_type] = self.counts.get(node.op_type, 0) + 1
        return True

    def nearest_resize(self, node, attrs, out: list, base: str) -> None:
        coord = attrs.get("coordinate_transformation_mode", b"half_pixel").decode()
        rounding = attrs.get("nearest_mode", b"round_prefer_floor").decode()
        if (coord, rounding) not in _EXACT_NEAREST:
            raise ValueError(f"{base}: nearest Resize with {coord}/{rounding} is not a plain pixel repeat; "
                             "no exact ConvTranspose rewrite")
        scales_name = node.input[2] if len(node.input) > 2 else node.input[1]   # opset >= 11 : opset 10
        if len(node.input) > 3 and node.input[3]:
            raise ValueError(f"{base}: Resize given output sizes, not scales; rewrite needs constant scales")
        scales = self.constant_value(scales_name)
        if scales is None or scales.shape != (4,):
            raise ValueError(f"{base}: Resize scales are not a constant 4-vector")
        sh, sw = float(scales[2]), float(scales[3])
        if scales[0] != 1 or scales[1] != 1 or sh != round(sh) or sw != round(sw) or sh < 1 or sw < 1:
            raise ValueError(f"{base}: Resize scales {scales.tolist()} are not an integer upsampling of H, W")
        sh, sw = int(sh), int(sw)
        channels = self.channels(node.input[0])
        kernel = self.constant(out, np.ones((channels, 1, sh, sw), np.float32), base + "/ones")
        out.append(helper.make_node("ConvTranspose", [node.input[0], kernel], [node.output[0]],
                                    name=self.fresh(base + "/deconv"), group=channels, kernel_shape=[sh, sw],
                                    strides=[sh, sw], pads=[0, 0, 0, 0], dilations=[1, 1]))


def rewrite_ops(model: onnx.ModelProto) -> tuple[onnx.ModelProto, dict]:
    """A copy of `model` with the WebGL-unsupported ops replaced. Returns (model, {op_type: replaced count})."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    rw = Rewriter(copy)
    nodes: list = []
    for node in copy.graph.node:
        if not rw.replace(node, nodes):
            nodes.append(node)
    del copy.graph.node[:]
    copy.graph.node.extend(drop_unused_constants(nodes, copy.graph))
    onnx.checker.check_model(copy)
    return copy, rw.counts


def drop_unused_constants(nodes: list, graph: onnx.GraphProto) -> list:
    """Remove Constant nodes nobody reads any more (the replaced Resize's roi/scales)."""
    used = {name for n in nodes for name in n.input} | {v.name for v in graph.output}
    return [n for n in nodes if n.op_type != "Constant" or n.output[0] in used]


def fix_shapes(model: onnx.ModelProto, input_shape, output_shape) -> onnx.ModelProto:
    """A copy with the (single) input and output declared at these static shapes: a WebGL session only ever
    runs one input shape. The output shape is given, not inferred: ONNX shape inference cannot see through
    cls/rec's Shape -> Slice -> Reshape chains (the build gets it by running the model once)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for value, shape in ((copy.graph.input[0], input_shape), (copy.graph.output[0], output_shape)):
        tensor_shape = value.type.tensor_type.shape
        old = [d.dim_value if d.HasField("dim_value") else None for d in tensor_shape.dim]
        sizes = [old[i] if size is None else size for i, size in enumerate(shape)]  # None: keep a static dim
        if None in sizes:
            raise ValueError(f"{value.name!r}: no size for symbolic dim {sizes.index(None)}")
        del tensor_shape.dim[:]
        for size in sizes:
            tensor_shape.dim.add().dim_value = int(size)
    onnx.checker.check_model(copy)
    return copy


def leftover_unsupported(model: onnx.ModelProto) -> list[str]:
    """Names of nodes WebGL would still reject (what the tests assert is empty)."""
    bad = []
    for n in model.graph.node:
        nearest = n.op_type == "Resize" and any(
            a.name == "mode" and a.s == b"nearest" for a in n.attribute) or (
            n.op_type == "Resize" and not any(a.name == "mode" for a in n.attribute))
        if n.op_type in UNSUPPORTED_ON_WEBGL or nearest:
            bad.append(f"{n.op_type}:{n.name}")
    return bad
