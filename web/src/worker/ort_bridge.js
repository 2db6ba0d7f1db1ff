// The JS half of the Worker protocol: onnxruntime-web sessions for det/cls/rec, called from Python's
// BridgeWorker (py/retto/bridge.py). Tensors cross as typed arrays: the input is a zero-copy view of the numpy
// buffer (PyProxy.getBuffer), the output is ORT's Float32Array, copied once into numpy on the Python side.
import { getBackend, MODEL_NAMES, planBackends } from './backends.js';
import { RettoWorkerError } from './errors.js';

// Tiny inputs for the smoke run of GPU backends (kernels they lack fail only at the first run).
const SMOKE_SHAPES = { det: [1, 3, 32, 32], cls: [1, 3, 48, 192], rec: [1, 3, 48, 64] };

/** Threads for the wasm EP: all cores when cross-origin isolated (SharedArrayBuffer), else 1 and why. */
export function wasmThreads(requested) {
  if (!self.crossOriginIsolated) {
    return { threads: 1, reason: 'page is not cross-origin isolated (COOP/COEP headers missing), so '
      + 'SharedArrayBuffer is unavailable and onnxruntime-web runs single-threaded' };
  }
  const cores = navigator.hardwareConcurrency || 1;
  if (requested) return { threads: Math.max(1, Math.min(requested, cores)), reason: `requested ${requested}` };
  return { threads: cores, reason: `cross-origin isolated: ${cores} threads (navigator.hardwareConcurrency)` };
}

async function loadRuntime(assetBase, runtimeFile, threads) {
  const ort = await import(/* @vite-ignore */ new URL(`ort/${runtimeFile}`, assetBase).href);
  ort.env.wasm.wasmPaths = new URL('ort/', assetBase).href; // the .mjs/.wasm pair comes from our origin
  ort.env.wasm.numThreads = threads; // ORT's own default is 1 on a 2-core machine
  ort.env.wasm.proxy = false; // we already are in a worker
  ort.env.logLevel = 'error';
  return ort;
}

export class OrtModels {
  constructor(ort, models, info) {
    this.ort = ort;
    this.models = models; // name -> {session, backend, inputName, outputName}
    this.info = info;
    this.signal = null; // AbortSignal-like {aborted} of the job in flight
    this.resetStats();
  }

  static async create({ assetBase, backend, threads, modelBytes }) {
    const plan = await planBackends(backend);
    if (!plan.runtime) {
      const why = Object.entries(plan.probes).map(([n, p]) => `${n}: ${p.reason}`).join('; ');
      throw new RettoWorkerError('backend_unavailable', `no usable backend for ${JSON.stringify(backend)} (${why})`);
    }
    const t = wasmThreads(threads);
    const ort = await loadRuntime(assetBase, plan.runtime, t.threads);
    const models = {};
    const fallbacks = {};
    for (const name of MODEL_NAMES) {
      const tried = [];
      for (const bname of plan.usable[name]) {
        try {
          models[name] = await createModelSession(ort, name, bname, modelBytes[name]);
          break;
        } catch (e) {
          tried.push(`${bname}: ${e.message}`);
        }
      }
      for (const bname of plan.wanted[name]) {
        if (!plan.probes[bname].ok) tried.unshift(`${bname}: ${plan.probes[bname].reason}`);
      }
      if (tried.length) fallbacks[name] = tried;
      if (!models[name]) {
        throw new RettoWorkerError('backend_unavailable', `${name} model: no backend could run it (${tried.join('; ')})`);
      }
    }
    const info = {
      backend: Object.fromEntries(MODEL_NAMES.map((n) => [n, models[n].backend])),
      fallbacks, // per model: why higher-priority backends were not used
      probes: plan.probes,
      runtime: plan.runtime,
      wasm: { threads: t.threads, threadsReason: t.reason, simd: true, crossOriginIsolated: self.crossOriginIsolated },
    };
    return new OrtModels(ort, models, info);
  }

  resetStats() {
    this.stats = Object.fromEntries(MODEL_NAMES.map((n) => [n, { calls: 0, ortMs: 0, copyInMs: 0 }]));
  }

  /** Worker protocol entry, awaited from Python: array is a PyProxy of a C-contiguous float32 numpy array. */
  async run(name, array, dims) {
    if (this.signal?.aborted) throw new DOMException('recognition was cancelled', 'AbortError');
    const m = this.models[name];
    const t0 = performance.now();
    const view = ArrayBuffer.isView(array) ? null : array.getBuffer('f32'); // before any await: proxy is borrowed
    try {
      const data = view ? view.data : array;
      const input = new this.ort.Tensor('float32', data, Array.from(dims));
      const t1 = performance.now();
      const out = await m.session.run({ [m.inputName]: input }); // ORT copies the input into its own heap here
      const t2 = performance.now();
      const s = this.stats[name];
      s.calls += 1;
      s.copyInMs += t1 - t0;
      s.ortMs += t2 - t1;
      const o = out[m.outputName];
      return { data: o.data, dims: o.dims };
    } finally {
      view?.release();
    }
  }
}

async function createModelSession(ort, name, backendName, bytes) {
  const b = getBackend(backendName);
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: b.executionProviders,
    graphOptimizationLevel: 'all',
  });
  const model = { session, backend: backendName, inputName: session.inputNames[0], outputName: session.outputNames[0] };
  if (b.smokeTest) {
    try {
      const shape = SMOKE_SHAPES[name];
      const input = new ort.Tensor('float32', new Float32Array(shape.reduce((a, c) => a * c, 1)), shape);
      await session.run({ [model.inputName]: input });
    } catch (e) {
      await session.release().catch(() => {});
      throw e;
    }
  }
  return model;
}
