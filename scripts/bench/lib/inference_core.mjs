// The timing loop of scripts/bench/inference.mjs, shared by its Node and browser (Chromium worker) runs: every
// engine (an onnxruntime-web build + session options + input shape) runs every recorded call, the engines
// alternating call by call (the order rotates with the call and the round); per role the sum over a round's calls,
// median over the rounds; outputs compared with the first engine's (bit-identical, or the largest difference).

export const OPTIONS = {
  base: {}, dev: {}, parallel: { executionMode: 'parallel' },
  extended: { graphOptimizationLevel: 'extended' }, basic: { graphOptimizationLevel: 'basic' },
  disabled: { graphOptimizationLevel: 'disabled' },
  noarena: { enableCpuMemArena: false }, nopattern: { enableMemPattern: false },
  nospin: { extra: { session: { intra_op: { allow_spinning: '0' } } } },
};

export const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

function padWidth(data, dims, q) { // zero columns on the right, as the pipeline pads a batch
  const [n, c, h, w] = dims;
  const w2 = Math.ceil(w / q) * q;
  if (w2 === w) return { data, dims };
  const out = new Float32Array(n * c * h * w2);
  for (let r = 0; r < n * c * h; r++) out.set(data.subarray(r * w, r * w + w), r * w2);
  return { data: out, dims: [n, c, h, w2] };
}

// batch1: each image of a batch run alone, at the batch's shape (the same work per image, one at a time)
function splitBatch({ data, dims }) {
  const k = data.length / dims[0];
  return Array.from({ length: dims[0] }, (_, i) => ({ data: data.subarray(i * k, (i + 1) * k), dims: [1, ...dims.slice(1)] }));
}
function joinBatch(outs) {
  const k = outs[0].data.length;
  const data = new Float32Array(k * outs.length);
  outs.forEach((o, i) => data.set(o.data, i * k));
  return { data, dims: [outs.length, ...outs[0].dims.slice(1)] };
}

function compare(want, got) { // a padded input gives more time steps: compare the steps both have
  const seq = want.dims.length === 3;
  const [n, t] = want.dims;
  const k = seq ? want.dims[2] : want.data.length / n;
  const tg = seq ? got.dims[1] : 1;
  let same = want.dims.join() === got.dims.join();
  let max = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < (seq ? t : 1); j++) {
      const a = want.data.subarray((i * (seq ? t : 1) + j) * k, (i * (seq ? t : 1) + j + 1) * k);
      const b = got.data.subarray((i * tg + j) * k, (i * tg + j + 1) * k);
      for (let x = 0; x < a.length; x++) {
        const d = Math.abs(a[x] - b[x]);
        if (d > max) max = d;
        if (!Object.is(a[x], b[x])) same = false;
      }
    }
  }
  return { same, max };
}

/** roles; engines: names (OPTIONS keys, 'dev', 'padN'); runtime(name) -> Promise<ort module>;
 * calls(role) -> Promise<[{dims, data: Float32Array}]>; model(role) -> Promise<Uint8Array>; log(line). */
export async function runLevers({ roles, engines: names, rounds, runtime, calls: loadCalls, model, log = () => {} }) {
  const report = {};
  for (const role of roles) {
    const calls = await loadCalls(role);
    const bytes = await model(role);
    const engines = [];
    for (const name of names) {
      const ort = await runtime(name);
      const pad = /^pad(\d+)$/.exec(name);
      const t0 = performance.now();
      const session = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'all', ...(OPTIONS[name] ?? {}) });
      const made = performance.now() - t0;
      const once = async (x) => (await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', x.data, x.dims) }))[session.outputNames[0]];
      const run = async (c) => {
        if (name === 'batch1' && c.dims[0] > 1) {
          const outs = [];
          for (const one of splitBatch(c)) outs.push(await once(one)); // one run at a time, as the bridge calls
          return joinBatch(outs);
        }
        return once(pad && role !== 'det' ? padWidth(c.data, c.dims, Number(pad[1])) : c);
      };
      await run(calls[0]); // warm-up: a session's first run allocates
      engines.push({ name, run, made, sums: [], same: true, max: 0, session });
    }
    for (let r = 0; r < rounds; r++) {
      engines.forEach((e) => e.sums.push(0));
      for (const [k, c] of calls.entries()) {
        const outs = {};
        for (let j = 0; j < engines.length; j++) {
          const e = engines[(j + k + r) % engines.length];
          const t0 = performance.now();
          const out = await e.run(c);
          e.sums[r] += performance.now() - t0;
          if (r === 0) outs[e.name] = { data: out.data, dims: out.dims };
        }
        if (r === 0) {
          for (const e of engines.slice(1)) {
            const d = compare(outs[engines[0].name], outs[e.name]);
            e.same &&= d.same;
            e.max = Math.max(e.max, d.max);
          }
        }
      }
      log(`${role} round ${r + 1}: ${engines.map((e) => `${e.name} ${e.sums[r].toFixed(0)}`).join('  ')}`);
    }
    report[role] = Object.fromEntries(engines.map((e) => [e.name, { calls: calls.length, ms: median(e.sums),
      rounds: e.sums.map(Math.round), sessionMs: Math.round(e.made), identical: e.same, maxDiff: e.max }]));
    for (const e of engines) await e.session.release();
  }
  return report;
}
