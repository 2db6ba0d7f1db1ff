// The JS half of the Worker protocol: onnxruntime-web sessions for det/cls/rec, called from Python's
// BridgeWorker (py/retto/browser/bridge.py). Tensors cross as typed arrays: the input is a zero-copy view of the numpy
// buffer (PyProxy.getBuffer), the output is ORT's Float32Array, copied once into numpy on the Python side.
import { getBackend, MODEL_NAMES, OPTIONAL_MODELS, planBackends } from './backends.js';
import { RettoWorkerError } from './errors.js';
import { canaryInput, canaryShapes, compareCanary, perturbForTest } from './canary.js';
import { ThreadChoice } from './thread_choice.js';
import { WebglBucketSessions } from './webgl_sessions.js';

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

async function loadRuntime(assetBase, runtimeFile, threads, instance = '') {
  // A module URL is one instance: `instance` (a query, which the service worker ignores) loads a second
  // onnxruntime-web with its own wasm memory and thread count (ThreadChoice's one-thread runtime).
  const ort = await import(/* @vite-ignore */ new URL(`ort/${runtimeFile}${instance}`, assetBase).href);
  ort.env.wasm.wasmPaths = new URL('ort/', assetBase).href; // the .mjs/.wasm pair comes from our origin
  ort.env.wasm.numThreads = threads; // ORT's own default is 1 on a 2-core machine
  ort.env.wasm.proxy = false; // we already are in a worker
  ort.env.logLevel = 'error';
  return ort;
}

export class OrtModels {
  constructor(ort, models, info, makeWasm, oneThread = null, startThreads = undefined) {
    this.ort = ort;
    this.models = models; // name -> {backend, run(tensor) -> tensor, release()}
    this.info = info;
    this.signal = null; // AbortSignal-like {aborted} of the job in flight
    this.onCall = null; // called at every model run (the worker's sign of life for the client's watchdog)
    this.makeWasm = makeWasm; // name -> Promise<wasm model>
    this.wasm = {}; // name -> Promise<wasm model>: for inputs beyond the WebGL buckets, made on first need
    this.wasmReady = {}; // name -> that model once made (run() must not await before taking its input view)
    // Adaptive threads (thread_choice.js): oneThread(name) -> Promise<wasm model on a one-thread runtime>; null
    // when the count is fixed (asked for, one core, or not cross-origin isolated).
    this.oneThread = oneThread;
    this.choice = oneThread ? new ThreadChoice(info.wasm.threads, startThreads) : null;
    this.single = {}; // name -> Promise<one-thread model>
    this.singleReady = {}; // name -> that model once made
    this.planned = {}; // name -> thread count prepare() chose for the next run()
    this.deferred = {}; // name -> () => Promise<model>: a session made after ready (create())
    this.pending = {}; // name -> Promise: that session being made
    this.resetStats();
  }

  /** The backend plan (backends.js planBackends), or backend_unavailable when nothing can run. */
  static async plan(backend, diagnostics = {}) {
    const plan = await planBackends(backend, { allowSoftware: Boolean(diagnostics.allowSoftware) });
    if (!plan.runtime) {
      const why = Object.entries(plan.probes).map(([n, p]) => `${n}: ${p.reason}`).join('; ');
      throw new RettoWorkerError('backend_unavailable', `no usable backend for ${JSON.stringify(backend)} (${why})`);
    }
    return plan;
  }

  /** plan: OrtModels.plan(); modelBytes: {det|cls|rec: bytes or a promise of them} (sessions are made in that
   * order, each as soon as its bytes are in, so det is ready first);
   * inputs: the model set's input sizes (canary shapes); loadWebgl(): Promise<{models: {det|cls|rec: {bytes, buckets}}, buckets}> (fetched only if WebGL may run a model);
   * stamp(bytes, input, output): Promise<Uint8Array> (retto.models.onnx_stamp in Pyodide);
   * startThreads: the adaptive rule's first count (the count the worker this one replaces ended on; default all cores);
   * onStep(name): 'onnxruntime' once the runtime is loaded, then each model's name once its session is made;
   * diagnostics: {allowSoftware?, perturbCanary?: {backend, model} or a list of them} (tests only). */
  static async create({ assetBase, plan, threads, startThreads, modelBytes, inputs, loadWebgl, stamp, onStep = () => {}, diagnostics = {} }) {
    const t = wasmThreads(threads);
    const ort = await loadRuntime(assetBase, plan.runtime, t.threads);
    onStep('onnxruntime');
    let webgl = null;
    const ctx = { ort, modelBytes, stamp, canaryShapes: canaryShapes(inputs), webglVariants: () => (webgl ??= loadWebgl()),
      sessionConfig: sessionConfig(diagnostics) };
    const references = {}; // name -> Promise<wasm model>: the canary's reference, kept if a model falls back to it
    const wasmModel = (name) => (references[name] ??= createModel(ctx, name, 'wasm'));
    const models = {};
    const fallbacks = {};
    const canary = {};
    const warnings = [];
    const deferred = {}; // name -> () => Promise<model>: made after ready (OrtModels.startDeferred)
    // The set's models: det, cls and rec, or det and cls for a set whose lines Tesseract reads (line_reader.js).
    const names = MODEL_NAMES.filter((n) => n in modelBytes);
    for (const name of names) {
      // A model only wasm may run (no canary, no fallback) is made after ready, except det, which a page needs
      // first: cls and rec are made right after ready, while a first page's det runs (prepare() waits for them).
      if (name !== names[0] && plan.usable[name].length === 1 && plan.usable[name][0] === 'wasm') {
        deferred[name] = () => createModel(ctx, name, 'wasm');
        const skipped = plan.wanted[name].filter((n) => !plan.probes[n].ok).map((n) => `${n}: ${plan.probes[n].reason}`);
        if (skipped.length) fallbacks[name] = skipped;
        onStep(name); // the step is "scheduled"
        continue;
      }
      const tried = [];
      let canaryFailed = false;
      for (const bname of plan.usable[name]) {
        let model;
        try {
          model = await createModel(ctx, name, bname);
        } catch (e) {
          tried.push(`${bname}: ${e.message}`);
          continue;
        }
        if (getBackend(bname).canary) {
          const verdict = await runCanary(ort, name, model, await wasmModel(name), diagnostics.perturbCanary);
          (canary[name] ??= {})[bname] = verdict;
          if (!verdict.ok) {
            canaryFailed = true;
            await model.release();
            tried.push(`${bname}: canary failed: ${verdict.detail}`);
            continue;
          }
        }
        models[name] = model;
        break;
      }
      if (!models[name] && canaryFailed) models[name] = await wasmModel(name); // a wrong GPU is never an error
      tried.unshift(...plan.wanted[name].filter((n) => !plan.probes[n].ok).map((n) => `${n}: ${plan.probes[n].reason}`));
      if (tried.length) fallbacks[name] = tried;
      if (!models[name]) {
        throw new RettoWorkerError('backend_unavailable', `${name} model: no backend could run it (${tried.join('; ')})`);
      }
      for (const [bname, v] of Object.entries(canary[name] ?? {})) {
        if (!v.ok) warnings.push(`${name}: the ${bname} canary failed (${v.detail}), so ${name} runs on ${models[name].backend}`);
      }
      onStep(name);
    }
    for (const [name, ref] of Object.entries(references)) {
      const r = await ref.catch(() => null);
      if (r && models[name] !== r) await r.release();
    }
    const info = {
      backend: Object.fromEntries(names.map((n) => [n, deferred[n] ? 'wasm' : models[n].backend])),
      fallbacks, // per model: why higher-priority backends were not used
      canary, // per model and GPU backend: the canary verdict
      warnings, // canary failures, in words (also in every result's warnings)
      probes: plan.probes,
      runtime: plan.runtime,
      webglBuckets: Object.values(models).some((m) => m.backend === 'webgl') ? (await ctx.webglVariants()).buckets : null,
      wasm: { threads: t.threads, threadsReason: t.reason, simd: true, crossOriginIsolated: self.crossOriginIsolated },
    };
    const adaptive = threads == null && t.threads > 1;
    let oneThread = null;
    if (adaptive) {
      let ctx1 = null;
      oneThread = async (name) => {
        ctx1 ??= loadRuntime(assetBase, plan.runtime, 1, '?threads=1').then((ort1) => ({ ...ctx, ort: ort1 }));
        const model = await createModel(await ctx1, name, 'wasm');
        // One untimed run of the canary's size: a session's first run allocates, which would bias the probe.
        const dims = model.canaryShape;
        if (dims) await model.run(new (await ctx1).ort.Tensor('float32', canaryInput(dims), dims));
        return model;
      };
      info.wasm.adaptive = true;
      info.wasm.threadsReason += '; adaptive: each call may run on one thread instead when that measures faster';
    }
    const ortModels = new OrtModels(ort, models, info, (name) => createModel(ctx, name, 'wasm'), oneThread, startThreads);
    ortModels.deferred = deferred;
    return ortModels;
  }

  /** The det bucket sides and cls/rec batches Python's BucketWorker uses ({det_sides, batches: {cls, rec}}: they
   * follow the config's det.limit_side_len and batch sizes): the WebGL models accept those shapes, and
   * info.webglBuckets says which. */
  useBucketLadder(ladder) {
    const b = this.info.webglBuckets;
    if (!b || !ladder) return;
    const sides = ladder.det_sides;
    this.info.webglBuckets = { ...b, det_sides: sides, batches: ladder.batches };
    this.models.det?.allow?.(sides.flatMap((h) => sides.map((w) => [1, 3, h, w])));
    this.models.cls?.allow?.([[ladder.batches.cls, 3, ...b.cls_hw]]);
    this.models.rec?.allow?.(b.rec_widths.map((w) => [ladder.batches.rec, 3, b.rec_height, w]));
  }

  /** The session of a model whose making was deferred past ready, made now if it is not yet (null: nothing to
   * wait for). A failed one is tried again at the next call. */
  made(name) {
    const make = this.deferred[name];
    if (!make || this.models[name]) return null;
    this.pending[name] ??= make().then((m) => {
      this.models[name] = m;
      delete this.deferred[name];
    }, (e) => {
      delete this.pending[name];
      throw e;
    });
    return this.pending[name];
  }

  /** After ready: make every deferred session, one after the other (each is also made on its first call). */
  startDeferred() {
    let chain = Promise.resolve();
    for (const name of Object.keys(this.deferred)) chain = chain.then(() => this.made(name)).catch(() => {});
    // then the one-thread sessions the adaptive rule's first probe would otherwise make inside the first page
    for (const name of MODEL_NAMES) {
      chain = chain.then(() => (this.choice && this.models[name]?.backend === 'wasm' ? this.oneThreadModel(name) : null))
        .catch(() => {});
    }
    return chain;
  }

  /** Every deferred session made (for calls that skip prepare()). */
  async allMade() {
    for (const name of Object.keys(this.deferred)) await this.made(name);
  }

  /** The thread count the adaptive rule uses now and why (null when the count is fixed). */
  threadInfo() {
    return this.choice ? this.choice.info : null;
  }

  /** Chooses the thread count of the next run of `name` (a model on wasm); makes its one-thread session the
   * first time it is needed. Returns a promise, or undefined when there is nothing to make. */
  planThreads(name, dims) {
    const n = this.choice.pick(name, Array.from(dims).reduce((a, d) => a * d, 1));
    this.planned[name] = n;
    if (n !== 1 || this.singleReady[name]) return undefined;
    return this.oneThreadModel(name).then(() => undefined, (e) => { // no second runtime: keep the fixed count
      console.warn(`adaptive threads off: the one-thread runtime failed (${e.message})`);
      this.choice = null;
      this.planned = {};
    });
  }

  /** The one-thread session of `name`, made once: by the idle start-up (startDeferred) or the first probe. */
  oneThreadModel(name) {
    if (!this.single[name]) {
      this.single[name] = this.oneThread(name).then((m) => (this.singleReady[name] = m));
      this.single[name].catch(() => delete this.single[name]);
    }
    return this.single[name];
  }

  /** The wasm session of `name` (its own model if it already runs on wasm); a failed creation may be retried. */
  wasmModel(name) {
    if (!this.wasm[name]) {
      const m = this.models[name];
      this.wasm[name] = (m.backend === 'wasm' ? Promise.resolve(m) : this.makeWasm(name))
        .then((made) => (this.wasmReady[name] = made));
      this.wasm[name].catch(() => delete this.wasm[name]);
    }
    return this.wasm[name];
  }

  /** Called from Python before run(): makes the session run() will use (a WebGL bucket, a wasm fallback).
   * Returns a promise, or undefined when there is nothing to make. Making one may run Python (stamping a
   * bucket), which can grow Pyodide's heap: run() must only take its view of the input after this. */
  prepare(name, dims, wasm = false) {
    this.onCall?.();
    const making = this.made(name);
    if (making) return making.then(() => this.prepare(name, dims, wasm));
    if (wasm) return this.wasmModel(name).then(() => undefined);
    if (!this.models[name]) return this.optionalModel(name).then(() => this.prepare(name, dims));
    if (this.choice && this.models[name].backend === 'wasm') return this.planThreads(name, dims);
    return this.models[name].prepare?.(Array.from(dims));
  }

  /** One of the set's optional models (OPTIONAL_MODELS), fetched and made on wasm at its first use. */
  optionalModel(name) {
    if (!OPTIONAL_MODELS.includes(name)) throw new RettoWorkerError('internal_error', `unknown model ${name}`);
    this.optional ??= {};
    if (!this.optional[name]) {
      this.optional[name] = this.makeWasm(name).then((made) => { this.models[name] = made; });
      this.optional[name].catch(() => delete this.optional[name]); // a failed fetch may be retried next job
    }
    return this.optional[name];
  }

  resetStats() {
    this.stats = Object.fromEntries(MODEL_NAMES.map((n) => [n, { calls: 0, ortMs: 0, copyInMs: 0 }]));
  }

  /** Worker protocol entry, awaited from Python: array is a PyProxy of a C-contiguous float32 numpy array. */
  async run(name, array, dims, wasm = false) {
    if (this.signal?.aborted) throw new DOMException('recognition was cancelled', 'AbortError');
    this.onCall?.();
    let m = wasm ? this.wasmReady[name] : this.models[name];
    const threads = !wasm && this.choice && m?.backend === 'wasm' ? (this.planned[name] ?? this.choice.max) : null;
    if (threads === 1) m = this.singleReady[name] ?? m;
    if (!m) throw new RettoWorkerError('internal_error', `${name}: wasm session used before prepare()`);
    const t0 = performance.now();
    const view = ArrayBuffer.isView(array) ? null : array.getBuffer('f32'); // before any await: proxy is borrowed
    try {
      const data = view ? view.data : array;
      const input = new this.ort.Tensor('float32', data, Array.from(dims));
      const t1 = performance.now();
      const o = await m.run(input); // ORT copies the input into its own heap here
      const t2 = performance.now();
      const s = (this.stats[name] ??= { calls: 0, ortMs: 0, copyInMs: 0 });
      s.calls += 1;
      s.copyInMs += t1 - t0;
      s.ortMs += t2 - t1;
      if (threads !== null) {
        this.choice.record(name, m === this.singleReady[name] ? 1 : this.choice.max, data.length, t2 - t1);
        delete this.planned[name];
      }
      if (Array.isArray(o)) return { outputs: o.map((t) => ({ data: t.data, dims: t.dims })) }; // layout, table
      return { data: o.data, dims: o.dims };
    } finally {
      view?.release();
    }
  }
}

/** onnxruntime session config entries for the wasm sessions (ORT's `extra`: nested keys, string values):
 * diagnostics.spin = false turns the intra-op pool's spin-waiting off (benchmarks compare both). */
function sessionConfig(diagnostics) {
  if (diagnostics.spin === undefined) return null;
  return { session: { intra_op: { allow_spinning: diagnostics.spin ? '1' : '0' } } };
}

/** A model on one backend: {backend, run(tensor) -> Promise<tensor>, release()}. */
async function createModel(ctx, name, backendName) {
  const b = getBackend(backendName);
  if (b.fixedShapes) {
    const variants = await ctx.webglVariants();
    const model = new WebglBucketSessions(ctx.ort, name, variants.models[name], ctx.stamp);
    return { backend: backendName, canaryShape: ctx.canaryShapes[name], runCanary: (input) => model.runOnce(input),
      prepare: (dims) => model.session(dims).then(() => undefined), run: (input) => model.run(input),
      allow: (inputs) => model.allow(inputs), release: () => model.release() };
  }
  const session = await ctx.ort.InferenceSession.create(await ctx.modelBytes[name], {
    executionProviders: b.executionProviders,
    graphOptimizationLevel: 'all',
    ...(backendName === 'wasm' && ctx.sessionConfig ? { extra: ctx.sessionConfig } : {}),
  });
  const [inputName, outputName] = [session.inputNames[0], session.outputNames[0]];
  const several = session.outputNames.length > 1; // the layout (8) and table (2) models: every output, in order
  // GPU kernels an EP lacks fail only at the first run: the canary (below) is that run.
  return { backend: backendName, canaryShape: ctx.canaryShapes[name],
    run: async (input) => {
      const out = await session.run({ [inputName]: input });
      return several ? session.outputNames.map((n) => out[n]) : out[outputName];
    },
    release: () => session.release().catch(() => {}) };
}

/** Run the canary input on `model` and on the wasm `reference`; compare (canary.js). */
async function runCanary(ort, name, model, reference, perturb) {
  const dims = model.canaryShape;
  const data = canaryInput(dims);
  const t0 = performance.now();
  try {
    const got = await (model.runCanary ?? model.run)(new ort.Tensor('float32', data, dims));
    const t1 = performance.now();
    const want = await reference.run(new ort.Tensor('float32', data, dims));
    let out = got.data;
    const hooks = [perturb ?? []].flat();
    if (hooks.some((h) => h.backend === model.backend && h.model === name)) out = perturbForTest(name, out, got.dims);
    const verdict = compareCanary(name, want.data, out, want.dims);
    return { ...verdict, input: dims, ms: Math.round(t1 - t0), wasmMs: Math.round(performance.now() - t1) };
  } catch (e) {
    return { ok: false, detail: `the canary run failed: ${e.message}`, input: dims };
  }
}
