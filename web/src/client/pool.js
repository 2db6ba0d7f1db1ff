// A pool of OCR workers: several Retto clients (one web worker each) reading files, and the pages of a PDF, at
// the same time. Results are the same as one client's, in the same order: a PDF's pages are read one page per
// job (the worker's `pages` option) and put back together in page order.
//
//   const pool = await Retto.createPool({ workers: 2, ...Retto.create's options });
//   const results = await pool.recognizeAll(files);          // in the order of `files`
//   const record = await pool.recognize(pdfFile, { onPage }); // its pages spread over the workers
//   pool.terminate();
//
// Default size (defaultPoolSize): one worker per core, at most one per 1.5 GB of device memory (a worker
// holds 0.3-1.5 GB of wasm memory: Pyodide, onnxruntime-web, the models), at least 1. Each worker gets
// cores / size onnxruntime threads (at least 1), so the pool never asks for more threads than cores.

const WORKER_MEMORY_GB = 1.5; // a worker's wasm memory before it is recycled (Retto's recycleHeapBytes)
const UNKNOWN_MEMORY_GB = 4; // navigator.deviceMemory is Chromium-only; elsewhere assume a common laptop

/** Workers for a machine of `cores` logical cores and `memoryGB` of memory (navigator.deviceMemory's units). */
export function defaultPoolSize({ cores = navigator.hardwareConcurrency || 1,
  memoryGB = navigator.deviceMemory || UNKNOWN_MEMORY_GB } = {}) {
  return Math.max(1, Math.min(cores, Math.floor(memoryGB / WORKER_MEMORY_GB)));
}

/** A PDF document record from records of some of its pages (each a document record): pages in page order, their
 *  warnings in that order too (the worker words them per page), the rest from the first. */
function mergeDocuments(parts) {
  const pages = parts.flatMap((d) => d.pages).sort((a, b) => a.page - b.page);
  const warnings = parts.slice().sort((a, b) => (a.pages[0]?.page ?? Infinity) - (b.pages[0]?.page ?? Infinity))
    .flatMap((d) => d.warnings ?? []);
  const { warnings: _, ...first } = parts[0];
  return { ...first, pages, ...(warnings.length ? { warnings } : {}) };
}

export class RettoPool {
  /** Boot `workers` clients (default: defaultPoolSize()); `options` are Retto.create's, for each of them. */
  static async create(Retto, { workers, threads, onProgress, ...options } = {}) {
    const size = Math.max(1, Math.floor(workers ?? defaultPoolSize()));
    const perWorker = threads ?? Math.max(1, Math.floor((navigator.hardwareConcurrency || 1) / size));
    const members = await Promise.allSettled(Array.from({ length: size }, (_, i) => Retto.create({
      ...options, threads: perWorker, onProgress: i === 0 ? onProgress : undefined })));
    const failed = members.find((m) => m.status === 'rejected');
    if (failed) {
      for (const m of members) if (m.status === 'fulfilled') m.value.terminate();
      throw failed.reason;
    }
    return new RettoPool(members.map((m) => m.value));
  }

  constructor(members) {
    this.members = members;
    this.idle = [...members];
    this.waiters = []; // resolve functions of jobs waiting for a free worker, first come first served
  }

  get size() { return this.members.length; }

  /** What runs each model (the first worker's info; every worker boots with the same options). */
  get info() { return this.members[0].info; }

  acquire() {
    if (this.idle.length) return Promise.resolve(this.idle.shift());
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(member) {
    const next = this.waiters.shift();
    if (next) next(member);
    else this.idle.push(member);
  }

  /** Run fn(client) on the next free worker. */
  async run(fn) {
    const member = await this.acquire();
    try {
      return await fn(member);
    } finally {
      this.release(member);
    }
  }

  /** One image (a result) or PDF (its document record, pages read in parallel); the options are
   *  Retto.recognize's. Concurrent calls share the workers. */
  async recognize(input, options = {}) {
    const bytes = await bytesOf(input);
    const name = options.name ?? input?.name;
    const member = await this.acquire();
    let document = false;
    try {
      document = bytes instanceof Uint8Array && await member.isPdf(bytes.subarray(0, 1024));
      if (!document) return await member.recognize(bytes, { ...options, name });
    } finally {
      if (!document) this.release(member);
    }
    return this.recognizeDocument(bytes, name, member, options); // this worker reads page 1
  }

  /** A PDF's pages, one job each: the first wave guesses pages 1..size (the page count is known after the
   *  first job; a page past the end gives no page), then the rest go to whichever worker is free. */
  async recognizeDocument(bytes, name, first, { signal, onProgress, onPage } = {}) {
    const opts = { signal, onProgress, onPage, name };
    const page = (member, n) => member.recognize(bytes, { ...opts, pages: [n] })
      .finally(() => this.release(member));
    const firstWave = [page(first, 1)];
    for (let n = 2; n <= this.size; n++) firstWave.push(this.acquire().then((m) => page(m, n)));
    for (const p of firstWave) p.catch(() => {}); // read in order below: the first error is the one thrown
    const head = await firstWave[0];
    const rest = [];
    for (let n = this.size + 1; n <= head.page_count; n++) rest.push(this.run((m) => m.recognize(bytes, { ...opts, pages: [n] })));
    const parts = [head, ...await Promise.all(firstWave.slice(1)), ...await Promise.all(rest)];
    return mergeDocuments(parts);
  }

  /** Every input, spread over the workers; resolves with their results in the order given (rejects with the
   *  first error, as Promise.all). */
  recognizeAll(inputs, options = {}) {
    return Promise.all(Array.from(inputs, (input) => this.recognize(input, options)));
  }

  /** Retto.export on a free worker. */
  export(record, format, options) {
    return this.run((m) => m.export(record, format, options));
  }

  terminate() {
    for (const m of this.members) m.terminate();
    for (const w of this.waiters.splice(0)) w(this.members[0]); // their calls then reject with 'terminated'
  }
}

async function bytesOf(input) {
  if (typeof Blob !== 'undefined' && input instanceof Blob) return new Uint8Array(await input.arrayBuffer());
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  return input; // an ImageBitmap: an image, read by one worker
}
