"""Stamp static input/output shapes into ONNX model bytes, in pure Python (no `onnx` package: runs in Pyodide).

Why: onnxruntime-web's WebGL backend rejects symbolic dims and a WebGL session only ever runs the first input
shape it sees, so it needs one model per shape bucket. Shipping one file per bucket would multiply 5-11 MB
models; instead one shape-free WebGL variant ships and each bucket's model is made from it on demand.

Only the graph's input/output ValueInfo entries are re-encoded; every other byte is copied as it is. Field numbers
are those of onnx.proto: ModelProto.graph = 7; GraphProto.input = 11, output = 12; ValueInfoProto.name = 1,
type = 2; TypeProto.tensor_type = 1; TypeProto.Tensor.elem_type = 1, shape = 2; TensorShapeProto.dim = 1;
Dimension.dim_value = 1, dim_param = 2.
"""
from __future__ import annotations

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


def _read_varint(buf, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64          # int64 two's complement, as protobuf encodes negative varints
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _fields(buf):
    """Yield (field number, wire type, payload start, payload end, record start) for one message's bytes."""
    pos, end = 0, len(buf)
    while pos < end:
        start = pos
        key, pos = _read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            _, after = _read_varint(buf, pos)
        elif wire == _I64:
            after = pos + 8
        elif wire == _I32:
            after = pos + 4
        elif wire == _LEN:
            size, pos = _read_varint(buf, pos)
            after = pos + size
        else:
            raise ValueError(f"unsupported protobuf wire type {wire} (field {number})")
        if after > end:
            raise ValueError("truncated protobuf message: not an ONNX model?")
        yield number, wire, pos, after, start
        pos = after


def _record(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | _LEN) + _varint(len(payload)) + payload


def _tensor_value_info(old: memoryview, dims) -> bytes:
    """Re-encode one ValueInfoProto with a static shape; name, element type and doc string are kept. A dim given
    as None keeps its old static value (e.g. rec's class count)."""
    name = doc = b""
    elem_type, old_dims = 1, []
    for number, wire, a, b, _ in _fields(old):
        if number == 1 and wire == _LEN:
            name = bytes(old[a:b])
        elif number == 3 and wire == _LEN:
            doc = bytes(old[a:b])
        elif number == 2 and wire == _LEN:
            for tn, tw, ta, tb, _ in _fields(old[a:b]):
                if tn != 1 or tw != _LEN:
                    continue
                tensor = old[a:b][ta:tb]
                for en, ew, ea, eb, _ in _fields(tensor):
                    if en == 1 and ew == _VARINT:
                        elem_type = _read_varint(tensor, ea)[0]
                    elif en == 2 and ew == _LEN:
                        old_dims = [_dim_value(tensor[ea:eb][da:db])
                                    for dn, _, da, db, _ in _fields(tensor[ea:eb]) if dn == 1]
    if old_dims and len(old_dims) != len(dims):
        raise ValueError(f"{name.decode()!r} has rank {len(old_dims)}, given shape {list(dims)}")
    shape = b""
    for i, size in enumerate(dims):
        if size is None:
            size = old_dims[i] if old_dims else None
            if size is None:
                raise ValueError(f"{name.decode()!r} dim {i} is symbolic and no size was given")
        shape += _record(1, _varint(1 << 3 | _VARINT) + _varint(int(size)))
    tensor = _varint(1 << 3 | _VARINT) + _varint(elem_type) + _record(2, shape)
    out = _record(1, name) + _record(2, _record(1, tensor))
    return out + (_record(3, doc) if doc else b"")


def _dim_value(dim: memoryview):
    for number, wire, a, _, _ in _fields(dim):
        if number == 1 and wire == _VARINT:
            return _read_varint(dim, a)[0]
    return None


def stamp_shapes(model: bytes, input_shape, output_shape=None) -> bytes:
    """Model bytes with the first graph input (and, if given, the first output) declared at a static shape."""
    buf = memoryview(bytes(model))
    out, stamped = bytearray(), False
    for number, wire, a, b, start in _fields(buf):
        if number != 7 or wire != _LEN:
            out += buf[start:b]
            continue
        graph, new_graph = buf[a:b], bytearray()
        done = {11: False, 12: output_shape is None}
        for gn, gw, ga, gb, gstart in _fields(graph):
            if gn in (11, 12) and gw == _LEN and not done[gn]:
                shape = input_shape if gn == 11 else output_shape
                new_graph += _record(gn, _tensor_value_info(graph[ga:gb], shape))
                done[gn] = True
            else:
                new_graph += graph[gstart:gb]
        if not all(done.values()):
            raise ValueError("the model's graph declares no input or output to stamp")
        out += _record(7, bytes(new_graph))
        stamped = True
    if not stamped:
        raise ValueError("no graph found: not an ONNX model")
    return bytes(out)
