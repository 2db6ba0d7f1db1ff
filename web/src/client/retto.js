// Main-thread client for Retto OCR. The main thread never runs OCR: it posts jobs to a web worker, one at a
// time (concurrent calls are queued, never interleaved), relays progress, and replaces a crashed worker.
//
//   const ocr = await Retto.create({ models: 'ppocr-v5-mobile' (a model set; default: the build's default set),
//                                    backend: 'auto' | 'wasm' | 'webgpu' | 'webgl' | {det, cls, rec}, assetBase,
//                                    config: {det: {box_thresh: 0.6}, ...} (the CLI's --config), onProgress,
//                                    allow: 'digits', block: '' (config.rec.allow / rec.block: a class or characters) });
//   await Retto.modelSets({assetBase}) lists the sets: [{name, label, summary, languages, bytes, default, webgl}].
// Robustness options: watchdogMs (default 120000: a job with no sign of life for that long counts as a crash;
// 0 disables it), abortGraceMs (default 2000: a running job that ignores an abort this long is ended with its
// worker), recycleHeapBytes (default 1.5e9: after a job that left the worker's wasm memory larger, the worker
// is replaced by a fresh one; wasm memory never shrinks), idleRecycleBytes (default 280e6: a worker whose wasm
// memory is above this is replaced after 1.5 s without calls, so memory goes back between batches: a resting
// tab stays near 600 MB; 0 disables it). ocr.boots counts the workers this instance started.
// `backend` may name one backend per model. GPU backends are checked against wasm at start (the canary); what
// actually runs each model, and why, is in ocr.info (backend, fallbacks, canary, warnings) and every result.
//   const result = await ocr.recognize(blobOrFileOrImageBitmapOrArrayBuffer, { signal, onProgress });
// A PDF (bytes starting with %PDF-, whatever the name) resolves with the document record instead:
//   {path, kind: 'pdf', page_count, pages: [result + {page, dpi} | {page, error}], warnings?}; each page is one
//   OCR job; onProgress also gets {stage: 'page', page, pageCount}, and onPage({page, pageCount, record,
//   preview}) runs as each page is done (preview: a JPEG Blob of the rendered page, for display).
//   const blob = await ocr.export(record, 'json' | 'jsonl' | 'text' | 'tsv' | 'md' | 'hocr' | 'alto' | 'pdf',
//                                 { source, name });   // the same bytes as `retto --format …` writes
// One table of a record (layout.tables): 'table_csv' | 'table_tsv' | 'table_md' | 'table_xlsx' with { table: i }.
// 'pdf' (searchable PDF) needs the input: source = the image or PDF file the record was read from; a list of
// records with { sources } makes one multi-page PDF.
//   ocr.terminate();

import { clientAssetBase as defaultAssetBase, startWorker } from './build_paths.js';
import { defaultPoolSize, RettoPool } from './pool.js';
import pythonFacts from '../generated/python_facts.json'; // generated from retto.browser.facts at build time

export class RettoError extends Error {
  /** code: invalid_image | image_too_large | model_integrity | model_missing | backend_unavailable |
   *  inference_failed | invalid_config | aborted | worker_crashed | worker_load_failed (the worker script did not
   *  load: e.g. assets/ not copied beside retto-ocr.js) | terminated | internal_error */
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
const DEFAULT_IDLE_RECYCLE_BYTES = 280e6;
const IDLE_RECYCLE_MS = 1500;
const REBOOT_DELAY_MS = 5000; // the ended worker's memory (its wasm heaps, onnxruntime's threads) takes seconds to go


/** One worker and its pending requests; the client swaps in a new one when this one crashes. */
class WorkerHandle {
  constructor(options, onCrash, watchdogMs = 0) {
    this.pending = new Map(); // id -> {resolve, reject, onProgress, timer}
    this.nextId = 1;
    this.dead = false;
    this.endedBy = null; // the error that ended this worker: a late request on it rejects with the same reason
    this.watchdogMs = watchdogMs;
    this.heapBytes = 0; // the worker's wasm heap after its last job
    this.worker = startWorker(options.assetBase);
    this.heard = false; // no message yet: an error now means the worker script itself did not load or run
    this.worker.onmessage = (ev) => { this.heard = true; this.onMessage(ev.data); };
    this.worker.onerror = (ev) => {
      ev.preventDefault?.();
      this.fail(this.heard ? new RettoError('worker_crashed', `OCR worker crashed: ${ev.message || 'unknown error'}`)
        : new RettoError('worker_load_failed', 'the OCR worker could not start: its script did not load'
          + `${ev.message ? ` (${ev.message})` : ' (missing beside the page\'s assets/, or blocked by the server)'}`));
      onCrash(this);
    };
    this.onCrash = onCrash;
  }

  request(type, payload, { transfer = [], onProgress, onPage } = {}) {
    // A call that got this handle just before it ended (e.g. terminate() while its input was being read) hears
    // why it ended: 'terminated' must stay 'terminated', or the page cannot tell a switch from a crash.
    if (this.dead) return Promise.reject(this.endedBy ?? new RettoError('worker_crashed', 'OCR worker is gone'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // No watchdog while booting: downloads take as long as the network does.
      const p = { resolve, reject, onProgress, onPage, timer: null, watched: type !== 'init' };
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
    else if (msg.type === 'page') p.onPage?.({ page: msg.page, pageCount: msg.pageCount, record: msg.record, preview: msg.preview });
    else if (msg.type === 'error') p.reject(new RettoError(msg.error.code, msg.error.message));
    else if (msg.type === 'ready') p.resolve(msg.info);
    else if (msg.type === 'result') p.resolve({ result: msg.result, stats: msg.stats });
  }

  fail(error) {
    this.dead = true;
    this.endedBy ??= error;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(error);
    }
    this.pending.clear();
    this.worker.terminate();
  }
}

async function inputBytes(input) {
  if (input instanceof Blob) return input.arrayBuffer();
  if (input instanceof ArrayBuffer) return input.slice(0);
  if (ArrayBuffer.isView(input)) return input.buffer.slice(input.byteOffset, input.byteOffset + input.byteLength);
  throw new RettoError('invalid_image', 'input must be a Blob, File, ImageBitmap, ArrayBuffer or typed array');
}

/** retto.export's formats: {json: {type, ext, table}, ...}: the MIME type of the Blob ocr.export gives, the file
 * extension the CLI uses, and whether it is one table of a record ({ table: its index among the record's tables }).
 * Generated from Python's retto.export.format_table() at build time (scripts/build/assemble_web_assets.py). */
export const EXPORT_FORMATS = Object.freeze(pythonFacts.export_formats);

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
  const buffer = await inputBytes(input);
  // name: a PDF's document record names its input (`path`), as the CLI's does
  return { msg: { kind: 'bytes', data: buffer, name: input.name ?? null }, transfer: [buffer] };
}

export class Retto {
  /** Boot a worker (Pyodide + onnxruntime-web + models); resolves when it is ready to recognize. */
  static async create({ models, backend = 'auto', config, allow, block, assetBase, onProgress, threads, diagnostics,
    watchdogMs = DEFAULT_WATCHDOG_MS, recycleHeapBytes = DEFAULT_RECYCLE_HEAP_BYTES,
    idleRecycleBytes = DEFAULT_IDLE_RECYCLE_BYTES,
    abortGraceMs = DEFAULT_ABORT_GRACE_MS } = {}) {
    // diagnostics (tests only): {allowSoftware: let auto use software GPU renderers,
    //   perturbCanary: {backend, model}: corrupt that canary output so the real check must catch it,
    //   noPythonSnapshot / pythonFirst: benchmarks of the start, see worker.js,
    //   spin: false: onnxruntime's intra-op threads do not spin-wait (scripts/bench/threads.mjs compares it)}
    // allow / block: shorthands for config.rec.allow / rec.block (read only / never these characters), which
    // Python applies (retto.ops.char_filter), as `retto --allow` does.
    if (allow || block) config = { ...config, rec: { ...config?.rec, ...(allow ? { allow } : {}), ...(block ? { block } : {}) } };
    const r = new Retto({ models: models || undefined, backend, config,
      assetBase: new URL(assetBase ?? defaultAssetBase(), document.baseURI).href, threads,
      ...(diagnostics ? { diagnostics } : {}) }, { watchdogMs, recycleHeapBytes, idleRecycleBytes, abortGraceMs });
    await r.start(onProgress);
    return r;
  }

  /** A pool of `workers` clients reading files and PDF pages in parallel (./pool.js); other options as create. */
  static createPool(options = {}) {
    return RettoPool.create(Retto, options);
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
    idleRecycleBytes = DEFAULT_IDLE_RECYCLE_BYTES,
    abortGraceMs = DEFAULT_ABORT_GRACE_MS } = {}) {
    this.options = options; // sent to the worker
    this.watchdogMs = watchdogMs;
    this.abortGraceMs = abortGraceMs;
    this.recycleHeapBytes = recycleHeapBytes;
    this.idleRecycleBytes = idleRecycleBytes;
    this.waiting = 0; // calls queued or running: a worker is recycled for growth only when none waits
    this.idleTimer = null;
    this.boots = 0; // workers started (the first, and each replacement)
    this.booting = null; // a replacement worker starting ahead of the next call
    this.handle = null;
    this.info = null; // backend per model, why not others, threads and why, versions, boot timings
    this.lastStats = null; // per-recognize breakdown: ORT time, bridge copies, wall time, the worker's heapBytes
    this.queue = Promise.resolve();
    this.terminated = false;
  }

  async start(onProgress) {
    // A replacement worker begins on the thread count its predecessor's adaptive rule ended on (the load it
    // measured is likely still there), rather than learning it again from all cores.
    const carried = this.lastStats?.threads?.threads;
    const options = carried ? { ...this.options, startThreads: carried } : this.options;
    const handle = new WorkerHandle(options, (h) => this.onCrash(h), this.watchdogMs);
    this.handle = handle;
    this.boots += 1;
    try {
      this.info = await handle.request('init', { options }, { onProgress });
      handle.readyHeapBytes = this.info.heapBytes ?? 0;
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

  /** After a job: a worker whose wasm memory passed recycleHeapBytes is replaced now; one above idleRecycleBytes
   *  (and above its size when ready) is replaced once no call came for IDLE_RECYCLE_MS (a batch keeps its warm
   *  worker; the memory goes back when the queue rests). Wasm memory never shrinks: replacing is the only way
   *  to give it back. */
  recycleIfLarge(handle) {
    if (this.handle !== handle || handle.dead) return;
    if (this.recycleHeapBytes && handle.heapBytes > this.recycleHeapBytes) {
      this.recycle(handle);
    } else if (this.idleRecycleBytes && handle.heapBytes > Math.max(this.idleRecycleBytes, handle.readyHeapBytes ?? 0)) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => {
        if (this.waiting === 0 && this.handle === handle && !handle.dead) this.recycle(handle, REBOOT_DELAY_MS);
      }, IDLE_RECYCLE_MS);
    }
  }

  /** Replace `handle`'s worker; the fresh one boots after `delayMs` (or at the next call, if sooner), so the old
   *  worker's memory is gone before the new one takes its own (else the two add up to a new peak). */
  recycle(handle, delayMs = 0) {
    this.replace(handle, new RettoError('terminated', 'OCR worker recycled (its memory grew too large)'));
    const boot = () => {
      if (this.handle || this.booting || this.terminated) return;
      this.booting = this.start().catch(() => {}).finally(() => { this.booting = null; });
    };
    if (delayMs) this.idleTimer = setTimeout(boot, delayMs);
    else boot();
  }

  async worker() {
    if (this.terminated) throw new RettoError('terminated', 'this Retto instance was terminated');
    if (this.booting) await this.booting;
    if (!this.handle || this.handle.dead) await this.start();
    return this.handle;
  }

  /** Run fn(handle) after every earlier call finished (never interleaved). */
  enqueue(fn, signal) {
    this.waiting += 1;
    clearTimeout(this.idleTimer); // a call came: the worker stays
    const run = this.queue.then(async () => {
      if (signal?.aborted) throw abortError();
      return fn(await this.worker());
    }).finally(() => { this.waiting -= 1; });
    this.queue = run.catch(() => {});
    return run;
  }

  /** OCR one image; resolves with the same JSON shape as native `result.to_dict()`. A PDF resolves with the
   *  document record (retto.io.document); name (default: the File's name) is its `path`. */
  recognize(input, { signal, onProgress, onPage, name, pages } = {}) {
    if (signal?.aborted) return Promise.reject(abortError());
    const job = this.enqueue(async (handle) => {
      const { msg, transfer } = await toMessage(input, this.info?.limits?.maxPixels);
      if (name) msg.name = name;
      if (pages) msg.pages = pages; // a PDF: only these page numbers (the pool's share)
      const done = handle.request('recognize', msg, { transfer, onProgress, onPage });
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

  /** A record (or, for 'pdf', a list of records) in one of retto.export's formats, as a Blob of its MIME type.
   *  For 'pdf', source (or sources, one per record) is the input each record was read from; for the table_*
   *  formats, table is the index of one of the record's tables (pages in order, then tables in reading order). */
  export(record, format, { source, sources, name, table } = {}) {
    if (!EXPORT_FORMATS[format]) return Promise.reject(new RettoError('invalid_config', `unknown export format ${format}`));
    if (EXPORT_FORMATS[format].table && !Number.isInteger(table)) {
      return Promise.reject(new RettoError('invalid_config', `${format} needs { table: index }`));
    }
    return this.enqueue(async (handle) => {
      let buffers = [];
      if (format === 'pdf') {
        const list = sources ?? [source];
        buffers = await Promise.all(list.map((s) => (s == null ? null : inputBytes(s))));
      }
      const msg = { record, format, sources: buffers, name: name ?? null, table: table ?? null };
      const { result } = await handle.request('export', msg, { transfer: buffers.filter(Boolean) });
      return new Blob([result], { type: EXPORT_FORMATS[format].type });
    });
  }

  /** Whether bytes (a file's first 1024 are enough) are a PDF, by the CLI's rule (retto.io.document.is_pdf). */
  isPdf(head) {
    return this.enqueue(async (handle) => {
      const copy = Uint8Array.from(head.subarray ? head : new Uint8Array(head));
      return (await handle.request('sniff', { head: copy.buffer }, { transfer: [copy.buffer] })).result;
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
    clearTimeout(this.idleTimer);
    this.handle?.fail(new RettoError('terminated', 'this Retto instance was terminated'));
    this.handle = null;
  }
}

export { defaultPoolSize, RettoPool };
export default Retto;
