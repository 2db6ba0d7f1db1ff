// Load progress that tells the truth: its total is every byte the boot will fetch (Pyodide, its wheels, the retto
// wheel, onnxruntime's runtime and wasm, the model set, the WebGL variants when WebGL may run) plus the start-up
// steps, known before the first event, and it only moves forward.
// Pyodide and onnxruntime-web fetch their own files, so while the boot runs, fetch() is wrapped: the body of each
// response under assets/ is counted as it streams in. Nothing is downloaded twice. Files that arrive by import()
// (the .mjs glue) are counted when their import is done.

/** Start-up steps after (or alongside) the downloads, in the order they usually finish. */
export const BOOT_STEPS = ['onnxruntime', 'det', 'cls', 'rec', 'python', 'retto', 'session'];

export class BootProgress {
  /** files: {assets path: size in bytes}; post(event): sends one progress event. */
  constructor({ assetBase, files, post, t0 = performance.now() }) {
    this.assetBase = new URL(assetBase).href;
    this.size = { ...files };
    this.got = Object.fromEntries(Object.keys(files).map((f) => [f, 0]));
    this.total = Object.values(files).reduce((a, b) => a + b, 0);
    this.loaded = 0;
    this.steps = [];
    this.post = post;
    this.t0 = t0;
    this.timeline = {}; // phase -> ms since t0
    this.lastPost = 0;
    this.restoreFetch = null;
  }

  /** Wrap self.fetch until uninstall(): responses for our files are counted as their bodies stream in. The
   * caller gets the original Response (its URL and HTTP-cache identity intact, which Chromium's cache of compiled
   * wasm needs); a clone of it is read alongside just to count. */
  install() {
    const original = self.fetch;
    const counter = this;
    self.fetch = async function countingFetch(input, init) {
      const res = await original.call(self, input, init);
      const file = counter.fileOf(typeof input === 'string' || input instanceof URL ? String(input) : input.url);
      if (file && res.ok && res.body) counter.count(file, res.clone().body.getReader());
      return res;
    };
    this.restoreFetch = () => { self.fetch = original; };
  }

  async count(file, reader) {
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) this.add(file, r.value.byteLength);
    } catch { /* the caller's read fails too, and says why */ }
  }

  uninstall() {
    this.restoreFetch?.();
    this.restoreFetch = null;
  }

  fileOf(url) {
    const href = new URL(url, this.assetBase).href.split(/[?#]/)[0];
    if (!href.startsWith(this.assetBase)) return null;
    const file = href.slice(this.assetBase.length);
    return file in this.size ? file : null;
  }

  /** n more bytes of file (never more than its size: a retried fetch does not count twice). */
  add(file, n, streamed = true) {
    const before = this.got[file];
    if (before >= this.size[file]) return; // already counted in full (by a credit, or a fetch made twice)
    this.got[file] = Math.min(this.size[file], before + n);
    this.loaded += this.got[file] - before;
    if (streamed && this.got[file] === this.size[file] && before < this.size[file] && this.size[file] >= 1e6) {
      this.mark(`fetched ${file.split('/').pop()}`); // the big ones, for the boot timeline
    }
    if (this.loaded === this.total && !('downloads' in this.timeline)) this.mark('downloads');
    this.emit(file);
  }

  /** A file that came by import() (or was otherwise taken whole): count what the wrapped fetch did not see. */
  credit(file) {
    if (file in this.size) this.add(file, this.size[file], false);
  }

  /** Boot done: files the plan allowed for but the boot did not fetch (the WebGL variants when WebGPU ran every
   * model; a restored interpreter's wheels, which come right after ready) count as done, so the bar ends full. */
  finish() {
    for (const f of Object.keys(this.size)) if (this.got[f] < this.size[f]) this.credit(f);
  }

  mark(phase) {
    this.timeline[phase] = Math.round(performance.now() - this.t0);
  }

  /** A start-up step is done. */
  step(name) {
    if (!this.steps.includes(name)) this.steps.push(name);
    this.mark(name);
    this.emit(name, true);
  }

  emit(file, force = false) {
    const now = performance.now();
    const complete = this.loaded === this.total;
    if (!force && !complete && now - this.lastPost < 50) return; // enough for a progress bar
    this.lastPost = now;
    this.post({
      stage: 'load',
      phase: complete ? 'start' : 'download',
      file,
      loaded: this.loaded,
      total: this.total,
      steps: { done: this.steps.length, total: BOOT_STEPS.length, last: this.steps.at(-1) ?? null },
    });
  }
}
