// Write input and output shapes into a copy of a .tflite file (a FlatBuffer, schema tflite::Model): the shapes
// LiteRT.js compiles for and sizes its buffers from (scripts/bench/lib/engine_litert_worker.js). Only the first
// subgraph's first input and first output are rewritten, in place: the rank must stay the same.

const MODEL_SUBGRAPHS = 2; // field indices of the schema's tables
const SUBGRAPH_TENSORS = 0;
const SUBGRAPH_INPUTS = 1;
const SUBGRAPH_OUTPUTS = 2;
const TENSOR_SHAPE = 0;

/** A table at `pos`: field(i) -> absolute position of field i, or 0 when absent. */
function table(dv, pos) {
  const vtable = pos - dv.getInt32(pos, true);
  const size = dv.getUint16(vtable, true);
  return (i) => {
    const at = 4 + 2 * i;
    const off = at < size ? dv.getUint16(vtable + at, true) : 0;
    return off ? pos + off : 0;
  };
}
const follow = (dv, pos) => pos + dv.getUint32(pos, true); // an offset field to what it points at

function shapeVector(dv, which) {
  const model = table(dv, dv.getUint32(0, true));
  const subgraph = table(dv, follow(dv, follow(dv, model(MODEL_SUBGRAPHS)) + 4));
  const tensors = follow(dv, subgraph(SUBGRAPH_TENSORS));
  const index = dv.getInt32(follow(dv, subgraph(which)) + 4, true);
  const tensor = table(dv, follow(dv, tensors + 4 + 4 * index));
  const shape = follow(dv, tensor(TENSOR_SHAPE));
  return { at: shape + 4, rank: dv.getUint32(shape, true) };
}

/** A copy of `bytes` whose first input has shape `inDims` and first output `outDims`. */
export function withShapes(bytes, inDims, outDims) {
  const copy = new Uint8Array(bytes);
  const dv = new DataView(copy.buffer);
  for (const [which, dims] of [[SUBGRAPH_INPUTS, inDims], [SUBGRAPH_OUTPUTS, outDims]]) {
    const { at, rank } = shapeVector(dv, which);
    if (rank !== dims.length) throw new Error(`a rank-${rank} tensor cannot take the shape ${dims.join('x')}`);
    dims.forEach((d, i) => dv.setInt32(at + 4 * i, d, true));
  }
  return copy;
}
