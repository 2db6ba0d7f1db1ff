// Main-thread client for Retto OCR. The main thread never runs OCR: it posts jobs to a web worker, one at a
// time (concurrent calls are queued, never interleaved), relays progress, and replaces a crashed worker.
//
//   const ocr = await Retto.create({ models: 'ppocr-v5-mobile' (a model set; default: the build's default set),
//                                    backend: 'auto' | 'wasm' | 'webgpu' | 'webgl' | {det, cls, rec}, assetBase,
//                                    config: {det: {box_thresh: 0.6}, ...} (the CLI's --config), onProgress });
//   await Retto.modelSets({assetBase}) lists the sets: [{name, label, summary, languages, bytes, default, webgl}].
// Robustness options: watchdogMs (default 120000: a job with no sign of life for that long counts as a crash;
// 0 disables it), abortGraceMs (default 2000: a running job that ignores an abort this long is ended with its
// worker), recycleHeapBytes (default 1.5e9: after a job that left the worker's wasm heap larger, the worker
// is replaced by a fresh one; the heap never shrinks). ocr.boots counts the workers this instance started.
// `backend` may name one backend per model. GPU backends are checked against wasm at start (the canary); what
// actually runs each model, and why, is in ocr.info (backend, fallbacks, canary, warnings) and every result.
//   const result = await ocr.recognize(blobOrFileOrImageBitmapOrArrayBuffer, { signal, onProgress });
//   ocr.terminate();

export class RettoError extends Error {
  /** code: invalid_image | image_too_large | model_integrity | model_missing | backend_unavailable |
   *  inference_failed | invalid_config | aborted | worker_crashed | terminated | internal_error */
  constructor(code, message) {
    super(message);
    this.name = 'RettoError';
    this.code = code;
  }
}

function abortError() {
  return new RettoError('aborted', 'recognition was cancelled');
}

const DEFAULT_ABORT_GRACE_MS = 2000;
const DEFAULT_WATCHDOG_MS = 120000;
const DEFAULT_RECYCLE_HEAP_BYTES = 1.5e9;

function defaultAssetBase() {
  return new URL('assets/', document.baseURI).href;
}

/** One worker and its pending requests; the client swaps in a new one when this one crashes. */
class WorkerHandle {
  constructor(options, onCrash, watchdogMs = 0) {
    this.pending = new Map(); // id -> {resolve, reject, onProgress, timer}
    this.nextId = 1;
    this.dead = false;
    this.watchdogMs = watchdogMs;
    this.heapBytes = 0; // the worker's wasm heap after its last job
    this.worker = new Worker(new URL('../worker/worker.js', import.meta.url), { type: 'module', name: 'retto-ocr' });
    this.worker.onmessage = (ev) => this.onMessage(ev.data);
    this.worker.onerror = (ev) => {
      ev.preventDefault?.();
      this.fail(new RettoError('worker_crashed', `OCR worker crashed: ${ev.message || 'unknown error'}`));
      onCrash(this);
    };
    this.onCrash = onCrash;
  }

  request(type, payload, { transfer = [], onProgress } = {}) {
    if (this.dead) return Promise.reject(new RettoError('worker_crashed', 'OCR worker is gone'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // No watchdog while booting: downloads take as long as the network does.
      const p = { resolve, reject, onProgress, timer: null, watched: type !== 'init' };
      this.pending.set(id, p);
      this.watch(p);
      this.worker.postMessage({ ...payload, type, id }, transfer);
    }).finally(() => {
      clearTimeout(this.pending.get(id)?.timer);
      this.pending.delete(id);
    });
  }

  /** (Re)arm the job's watchdog: a worker that gives no sign of life (busy or dead inside Python or wasm, where
   * no error reaches us) for watchdogMs is treated as crashed. */
  watch(p) {
    clearTimeout(p.timer);
    if (!this.watchdogMs || !p.watched) return;
    p.timer = setTimeout(() => {
      this.fail(new RettoError('worker_crashed', `OCR worker gave no sign of life for ${this.watchdogMs / 1000} s`));
      this.onCrash(this);
    }, this.watchdogMs);
  }

  lastId() {
    return this.nextId - 1;
  }

  onMessage(msg) {
    const p = this.pending.get(msg.id);
    if (msg.type === 'fatal') {
      this.fail(new RettoError(msg.error.code, msg.error.message));
      this.onCrash(this);
      return;
    }
    if (msg.heapBytes) this.heapBytes = msg.heapBytes;
    if (!p) return;
    this.watch(p);
    if (msg.type === 'progress') p.onProgress?.(msg.event);
    else if (msg.type === 'error') p.reject(new RettoError(msg.error.code, msg.error.message));
    else if (msg.type === 'ready') p.resolve(msg.info);
    else if (msg.type === 'result') p.resolve({ result: msg.result, stats: msg.stats });
  }

  fail(error) {
    this.dead = true;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(error);
    }
    this.pending.clear();
    this.worker.terminate();
  }
}

async function toMessage(input, maxPixels) {
  // Encoded images go to Python as bytes (decoded by Pillow, exactly as natively); ImageBitmaps as pixels.
  if (typeof ImageBitmap !== 'undefined' && input instanceof ImageBitmap) {
    const { width: w, height: h } = input;
    if (maxPixels && w * h > maxPixels) { // refused before the copy below (4 bytes a pixel), as Python would
      throw new RettoError('image_too_large', `${w}x${h} is ${Math.round(w * h / 1e6)} megapixels; `
        + `the limit is ${Math.round(maxPixels / 1e6)} megapixels`);
    }
    const copy = await createImageBitmap(input); // transfer a copy: the caller keeps theirs
    return { msg: { kind: 'bitmap', data: copy }, transfer: [copy] };
  }
  let buffer;
  if (input instanceof Blob) buffer = await input.arrayBuffer();
  else if (input instanceof ArrayBuffer) buffer = input.slice(0);
  else if (ArrayBuffer.isView(input)) buffer = input.buffer.slice(input.byteOffset, input.byteOffset + input.byteLength);
  else throw new RettoError('invalid_image', 'input must be a Blob, File, ImageBitmap, ArrayBuffer or typed array');
  return { msg: { kind: 'bytes', data: buffer }, transfer: [buffer] };
}

export class Retto {
  /** Boot a worker (Pyodide + onnxruntime-web + models); resolves when it is ready to recognize. */
  static async create({ models, backend = 'auto', config, assetBase, onProgress, threads, diagnostics,
    watchdogMs = DEFAULT_WATCHDOG_MS, recycleHeapBytes = DEFAULT_RECYCLE_HEAP_BYTES,
    abortGraceMs = DEFAULT_ABORT_GRACE_MS } = {}) {
    // diagnostics (tests only): {allowSoftware: let auto use software GPU renderers,
    //   perturbCanary: {backend, model}: corrupt that canary output so the real check must catch it}
    const r = new Retto({ models: models || undefined, backend, config,
      assetBase: new URL(assetBase ?? defaultAssetBase(), document.baseURI).href, threads,
      ...(diagnostics ? { diagnostics } : {}) }, { watchdogMs, recycleHeapBytes, abortGraceMs });
    await r.start(onProgress);
    return r;
  }

  /** The model sets this build ships, in display order (read from the asset manifest; nothing is booted). */
  static async modelSets({ assetBase } = {}) {
    const base = new URL(assetBase ?? defaultAssetBase(), document.baseURI);
    const res = await fetch(new URL('manifest.json', base));
    if (!res.ok) throw new RettoError('model_missing', `asset manifest missing (HTTP ${res.status})`);
    const manifest = await res.json();
    return Object.entries(manifest.model_sets)
      .map(([name, e]) => ({ name, label: e.set.label, summary: e.set.summary, languages: e.set.languages,
        bytes: e.bytes, default: name === manifest.default_model_set, webgl: e.set.webgl, order: e.set.order }))
      .sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
  }

  constructor(options, { watchdogMs = DEFAULT_WATCHDOG_MS, recycleHeapBytes = DEFAULT_RECYCLE_HEAP_BYTES,
    abortGraceMs = DEFAULT_ABORT_GRACE_MS } = {}) {
    this.options = options; // sent to the worker
    this.watchdogMs = watchdogMs;
    this.abortGraceMs = abortGraceMs;
    this.recycleHeapBytes = recycleHeapBytes;
    this.boots = 0; // workers started (the first, and each replacement)
    this.booting = null; // a replacement worker starting ahead of the next call
    this.handle = null;
    this.info = null; // backend per model, why not others, threads and why, versions, boot timings
    this.lastStats = null; // per-recognize breakdown: ORT time, bridge copies, wall time, the worker's heapBytes
    this.queue = Promise.resolve();
    this.terminated = false;
  }

  async start(onProgress) {
    const handle = new WorkerHandle(this.options, (h) => this.onCrash(h), this.watchdogMs);
    this.handle = handle;
    this.boots += 1;
    try {
      this.info = await handle.request('init', { options: this.options }, { onProgress });
    } catch (e) {
      handle.fail(e); // a worker that could not boot is not kept around
      throw e;
    }
    if (this.terminated) handle.fail(new RettoError('terminated', 'this Retto instance was terminated'));
    return this.info;
  }

  onCrash(handle) {
    // Replace the worker lazily: the next queued call boots a fresh one.
    if (this.handle === handle) this.handle = null;
  }

  /** End `handle`'s worker (its pending calls reject with `error`); the next call runs on a fresh one. */
  replace(handle, error) {
    if (!handle.dead) handle.fail(error);
    this.onCrash(handle);
  }

  /** After a job: a worker whose wasm heap grew past recycleHeapBytes is replaced now, while nothing waits. */
  recycleIfLarge(handle) {
    if (!this.recycleHeapBytes || handle.heapBytes <= this.recycleHeapBytes || this.handle !== handle) return;
    this.replace(handle, new RettoError('terminated', 'OCR worker recycled (its memory grew too large)'));
    this.booting = this.start().catch(() => {}).finally(() => { this.booting = null; });
  }

  async worker() {
    if (this.terminated) throw new RettoError('terminated', 'this Retto instance was terminated');
    if (this.booting) await this.booting;
    if (!this.handle || this.handle.dead) await this.start();
    return this.handle;
  }

  /** Run fn(handle) after every earlier call finished (never interleaved). */
  enqueue(fn, signal) {
    const run = this.queue.then(async () => {
      if (signal?.aborted) throw abortError();
      return fn(await this.worker());
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** OCR one image; resolves with the same JSON shape as native `result.to_dict()`. */
  recognize(input, { signal, onProgress } = {}) {
    if (signal?.aborted) return Promise.reject(abortError());
    const job = this.enqueue(async (handle) => {
      const { msg, transfer } = await toMessage(input, this.info?.limits?.maxPixels);
      const done = handle.request('recognize', msg, { transfer, onProgress });
      const id = handle.lastId();
      let grace = null;
      const onAbort = () => {
        handle.worker.postMessage({ type: 'abort', id });
        // The worker reads the abort only between model calls; inside a long decode it cannot. Past the grace
        // period its worker is ended, so the next call does not wait for work nobody wants.
        grace = setTimeout(() => this.replace(handle, abortError()), this.abortGraceMs);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const { result, stats } = await done;
        this.lastStats = stats;
        return result;
      } finally {
        signal?.removeEventListener('abort', onAbort);
        clearTimeout(grace);
        this.recycleIfLarge(handle);
      }
    }, signal);
    if (!signal) return job;
    // The caller hears about the abort at once; the worker stops at its next model call and the queue waits.
    return new Promise((resolve, reject) => {
      signal.addEventListener('abort', () => reject(abortError()), { once: true });
      job.then(resolve, reject);
    });
  }

  /** Diagnostics (backend canary, tests): run one model on a raw float32 tensor. */
  runModel(name, data, dims) {
    return this.enqueue(async (handle) => {
      const copy = Float32Array.from(data);
      const { result } = await handle.request('runModel', { name, data: copy.buffer, dims }, { transfer: [copy.buffer] });
      return { data: new Float32Array(result.data), dims: result.dims, backend: result.backend };
    });
  }

  /** Diagnostics (tests): run Python in the worker's interpreter; returns the converted last value. */
  evalPython(code) {
    return this.enqueue(async (handle) => (await handle.request('python', { code })).result);
  }

  /** Diagnostics (tests): make the worker throw an uncaught error, as a crash would. */
  simulateCrash() {
    this.handle?.worker.postMessage({ type: 'crash' });
  }

  terminate() {
    this.terminated = true;
    this.handle?.fail(new RettoError('terminated', 'this Retto instance was terminated'));
    this.handle = null;
  }
}

export default Retto;
