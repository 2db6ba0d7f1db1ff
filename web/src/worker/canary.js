// The GPU correctness canary: at init, every model a GPU backend is about to run is also run on wasm with the same
// small input, and the outputs are compared. PP-OCR rec has been seen to decode wrongly on WebGPU elsewhere, and a
// driver can be wrong in ways a smoke run does not show; a model that fails goes to the next backend in line.
//   rec: any argmax mismatch over the classes (what CTC decoding reads) fails;
//   det, cls: a max abs difference above 1e-3 fails.

export const CANARY_TOLERANCE = { det: 1e-3, cls: 1e-3 };

/** Canary input shapes, from the model set's input sizes (its set file's `inputs`): a small det square, one cls
 * input, one rec line twice as wide as high. WebGL runs them on a throw-away session stamped to the shape (its
 * buckets are far bigger). */
export function canaryShapes(inputs = {}) {
  const cls = inputs.cls ?? {};
  const recHeight = inputs.rec?.height ?? 48;
  const multiple = inputs.det?.multiple ?? 32;
  return { det: [1, 3, 2 * multiple, 2 * multiple], cls: [1, 3, cls.height ?? 48, cls.width ?? 192],
    rec: [1, 3, recHeight, 2 * recHeight] };
}

/** A text-like input in the models' normalised range: white background (1.0), a band of dark vertical strokes of
 * varying width and spacing (-1.0), and a faint deterministic ripple so no two rows are identical. */
export function canaryInput(dims) {
  const [n, c, h, w] = dims;
  const data = new Float32Array(n * c * h * w);
  const top = Math.floor(h * 0.3);
  const bottom = Math.ceil(h * 0.7);
  let i = 0;
  for (let b = 0; b < n; b++) {
    for (let ch = 0; ch < c; ch++) {
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const period = 7 + ((x >> 4) + b) % 5; // stroke spacing changes every 16 px and per item
          const stroke = y >= top && y < bottom && (x % period) < 3 && x > 2 && x < w - 3;
          data[i++] = (stroke ? -1 : 1) - 0.05 * Math.sin(0.37 * x + 0.61 * y + 1.3 * ch + b);
        }
      }
    }
  }
  return data;
}

function argmaxRows(data, width) {
  const rows = data.length / width;
  const out = new Int32Array(rows);
  for (let r = 0; r < rows; r++) {
    let best = 0;
    for (let k = 1; k < width; k++) if (data[r * width + k] > data[r * width + best]) best = k;
    out[r] = best;
  }
  return out;
}

/** Compare a GPU output with wasm's; returns {ok, detail, ...numbers}. `dims` is the output's shape. */
export function compareCanary(name, reference, candidate, dims) {
  if (reference.length !== candidate.length) {
    return { ok: false, detail: `output sizes differ (${candidate.length} vs wasm ${reference.length})` };
  }
  if (candidate.some((v) => !Number.isFinite(v))) return { ok: false, detail: 'output has NaN or infinite values' };
  if (name === 'rec') {
    const classes = dims[dims.length - 1];
    const a = argmaxRows(reference, classes);
    const b = argmaxRows(candidate, classes);
    const mismatches = a.reduce((k, v, i) => k + (v !== b[i] ? 1 : 0), 0);
    return { ok: mismatches === 0, argmaxMismatches: mismatches, steps: a.length,
      detail: `${mismatches} of ${a.length} time steps decode to a different class than on wasm` };
  }
  let worst = 0;
  for (let i = 0; i < reference.length; i++) worst = Math.max(worst, Math.abs(reference[i] - candidate[i]));
  const tol = CANARY_TOLERANCE[name];
  return { ok: worst <= tol, maxAbsDiff: worst, tolerance: tol,
    detail: `max abs difference from wasm ${worst.toExponential(2)} (tolerance ${tol})` };
}

/** Test hook (diagnostics.perturbCanary = {backend, model}): corrupt that backend's canary output for that model
 * the way a wrong kernel would, so the comparison above, not the hook, decides what happens. */
export function perturbForTest(name, data, dims) {
  const out = Float32Array.from(data);
  if (name === 'rec') { // make the first time step's runner-up class the winner
    const classes = dims[dims.length - 1];
    let best = 0;
    for (let k = 1; k < classes; k++) if (out[k] > out[best]) best = k;
    out[(best + 1) % classes] = out[best] + 1;
  } else {
    out[0] += 0.01;
  }
  return out;
}
