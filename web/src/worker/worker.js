// The OCR web worker: boots Pyodide + onnxruntime-web once, then runs the unchanged py/retto pipeline per job.
// Message protocol (client.js is the only sender):
//   in:  init {options: {assetBase, backend, models, config, threads, startThreads (adaptive threads' first count:
//        the count the replaced worker ended on), diagnostics}} (diagnostics.noPythonSnapshot:
//        start Python without its stored memory snapshot, to measure it; diagnostics.pythonFirst: start onnxruntime
//        only once Python is up, to measure Python's start alone) | recognize {kind, data, width, height, name,
//        pages (a PDF: read only these page numbers; the client's pool splits a document this way)}
//        | export {record, format, sources, name} | sniff {head} (is it a PDF?) | abort {id} | runModel {name, data, dims}
//        | python {code} (diagnostics) | crash (diagnostics: simulates an uncaught worker error)
//   out: progress {event} | alive (a model call started: the client's watchdog) | ready {info}
//        | page {page, pageCount, record, preview} (a PDF: each page as it is done) | result {result, stats}
//        | error {error:{code, message}} | fatal {error}
// A recognize of bytes that start with %PDF- is a document: pages are rendered by pdf.js (pdf_pages.js) and
// read one by one; the result is retto.io.document's document record.
import './wasm_memory.js'; // first: it must see the runtimes create their memories
import { fetchManifestSized, fetchModels, fetchWebglModels, modelSetEntry } from './assets.js';
import { OPTIONAL_MODELS, RUNTIME_FILES } from './backends.js';
import { BootProgress } from './boot_progress.js';
import { LineReader, lineReaderFiles } from './line_reader.js';
import pythonFacts from '../generated/python_facts.json';
import { RettoWorkerError, toErrorPayload } from './errors.js';
import { OrtModels } from './ort_bridge.js';
import { wasmMemoryBytes } from './wasm_memory.js';
import { bootPython, installWheels, PYODIDE_CORE } from './python_runtime.js';

const state = { ready: null, current: null };

function post(msg, transfer = []) {
  self.postMessage(msg, transfer);
}

/** Every file the boot will load, with its size (assets/manifest.json): Pyodide's core and wheels, the retto
 * wheel, the ORT runtime the backend plan chose (and only its wasm: no JSEP build for wasm alone), the model set,
 * and its WebGL variants when WebGL may run a model. */
function bootFiles(manifest, modelSet, plan) {
  const packages = new Set(manifest.pyodide.packages.map((p) => p.toLowerCase()));
  const paths = [
    ...PYODIDE_CORE.map((f) => `pyodide/${f}`),
    ...Object.keys(manifest.files).filter((f) => f.startsWith('pyodide/') && f.endsWith('.whl')
      && packages.has(f.slice('pyodide/'.length).split('-')[0].toLowerCase())),
    manifest.retto_wheel,
    ...[plan.runtime, ...RUNTIME_FILES[plan.runtime]].map((f) => `ort/${f}`),
    ...Object.entries(modelSet.files).filter(([role]) => !OPTIONAL_MODELS.includes(role)).map(([, m]) => m.file),
    ...lineReaderFiles(manifest, modelSet), // the wasm Tesseract, for a set whose lines it reads
  ];
  if (modelSet.webgl && Object.values(plan.usable).some((names) => names.includes('webgl'))) {
    const dir = modelSet.webgl.replace(/[^/]*$/, '');
    paths.push(...Object.keys(manifest.files).filter((f) => f.startsWith(dir)));
  }
  return Object.fromEntries(paths.map((f) => [f, manifest.files[f].size]));
}

async function init(id, options) {
  const t0 = performance.now();
  const assetBase = options.assetBase;
  // The backend plan first (a few ms of probing): it decides onnxruntime's files, so the load total is known
  // before any download. Then Python, the models and onnxruntime all start at once.
  const { manifest, size: manifestSize } = await fetchManifestSized(assetBase);
  const modelSet = modelSetEntry(manifest, options.models);
  const plan = await OrtModels.plan(options.backend ?? 'auto', options.diagnostics);
  const progress = new BootProgress({ assetBase, t0, files: { 'manifest.json': manifestSize, ...bootFiles(manifest, modelSet, plan) },
    post: (event) => post({ type: 'progress', id, event }) });
  progress.mark('plan');
  progress.install();
  try {
    progress.credit('manifest.json');
    const python = bootPython({ assetBase, manifest, snapshot: !options.diagnostics?.noPythonSnapshot, onStep: (n) => {
      if (n === 'python') PYODIDE_CORE.forEach((f) => progress.credit(`pyodide/${f}`));
      progress.step(n);
    }, mark: (phase) => progress.mark(phase), log: (stream, m) => (stream === 'stderr' ? console.warn : console.log)(`[py] ${m}`) });
    python.catch(() => {}); // awaited below; if the models fail first, that error is the one reported
    // The optional models (page orientation, the re-reading recogniser) are fetched on their first use.
    const modelBytes = fetchModels(assetBase, modelSet, undefined, OPTIONAL_MODELS);
    const { dict: dictionary, reread_dict: rereadDictionary } = modelBytes;
    Object.values(modelBytes).forEach((p) => p.catch(() => {})); // awaited by the sessions
    // A Tesseract set's line recogniser (its engine and traineddata), loaded alongside onnxruntime.
    const lineReader = modelSet.set.line_rec ? LineReader.create({ assetBase, manifest, modelSet, modelBytes }) : null;
    lineReader?.catch(() => {}); // awaited below
    const loadWebgl = () => fetchWebglModels(assetBase, manifest, modelSet);
    const stamp = async (bytes, input, output) => (await python).stampShapes(bytes, input, output);
    if (options.diagnostics?.pythonFirst) await python;
    const ort = await OrtModels.create({ assetBase, plan, threads: options.threads, startThreads: options.startThreads, modelBytes,
      inputs: modelSet.set.inputs, loadWebgl, stamp, diagnostics: options.diagnostics, onStep: (n) => {
        if (n !== 'onnxruntime') [plan.runtime, ...RUNTIME_FILES[plan.runtime]].forEach((f) => progress.credit(`ort/${f}`));
        progress.step(n);
      } });
    const py = await python;
    const versions = {
      ...py.versions,
      pyodide: py.pyodide.version,
      'onnxruntime-web': ort.ort.env.versions?.web ?? manifest.versions['onnxruntime-web'],
      models: Object.fromEntries(['det', 'cls', 'rec', ...OPTIONAL_MODELS].filter((r) => modelSet.set.files[r])
        .map((r) => [r, `${modelSet.set.files[r].version} sha256:${modelSet.set.files[r].sha256.slice(0, 12)}`])),
    };
    if (modelSet.set.line_rec) { // its traineddata, each named as natively (retto.models.sets ModelSet.version)
      versions.models.line_rec = modelSet.set.line_rec.languages.split('+')
        .map((lang) => modelSet.set.files[`${pythonFacts.traineddata_prefix}${lang}`])
        .map((f) => `${f.version} sha256:${f.sha256.slice(0, 12)}`).join(', ');
      versions['tesseract.js-core'] = manifest.tesseract.version;
    }
    // Every result says what ran each model: the set's optional models always run on wasm.
    const backend = { ...ort.info.backend };
    const lines = await lineReader;
    if (lines) {
      backend.line_rec = lines.backend;
      [manifest.tesseract.module, manifest.tesseract.wasm].forEach((f) => progress.credit(f));
    }
    for (const role of OPTIONAL_MODELS) if (modelSet.set.files[role]) backend[role] = 'wasm';
    const extra = { warnings: ort.info.warnings, buckets: ort.info.webglBuckets };
    progress.mark('session inputs in');
    const pair = py.bridge.create_session(ort, JSON.stringify(modelSet.set), (await modelBytes.rec) ?? null,
      (await dictionary) ?? null, JSON.stringify(backend), JSON.stringify(versions), JSON.stringify(extra),
      JSON.stringify(options.config ?? {}), (await rereadDictionary) ?? null, lines);
    const session = pair.get(0);
    const pyWorker = pair.get(1);
    pair.destroy();
    ort.useBucketLadder(JSON.parse(py.bridge.bucket_ladder(pyWorker)));
    // files the plan allowed for but the boot did not fetch: WebGL variants when WebGPU won, and a restored
    // interpreter's wheels (fetched right after ready)
    progress.finish();
    progress.step('session');
    const timings = progress.timeline;
    state.ready = { ...py, ort, lines, session, pyWorker, versions, assetBase, manifest }; // assets: pdf.js, export wheels on demand
    const { name, bytes, set } = modelSet;
    const maxPixels = py.bridge.max_pixels(session);
    // when this worker was made and when it got init (epoch ms): a page can place the boot on its own clock
    const started = { worker: performance.timeOrigin, init: performance.timeOrigin + t0 };
    // info.backend: what runs each model made at boot, and a Tesseract set's line reader
    const infoBackend = lines ? { ...ort.info.backend, line_rec: lines.backend } : ort.info.backend;
    return { ...ort.info, backend: infoBackend, versions, timings, started, python: { start: py.start }, limits: { maxPixels }, heapBytes: heapBytes(),
      modelSet: { name, label: set.label, summary: set.summary, languages: set.languages, bytes, webgl: set.webgl } };
  } finally {
    progress.uninstall();
  }
}

/** The worker's wasm memory in bytes (Pyodide's heap + onnxruntime-web's): it grows and never shrinks, so the
 * client recycles a worker past a limit. Pyodide's heap alone where the runtimes made no memory from JS. */
function heapBytes() {
  return Math.max(wasmMemoryBytes(), state.ready?.pyodide._module.HEAPU8.length ?? 0);
}

async function recognize(id, msg) {
  const s = state.ready;
  let { kind, data, width, height } = msg;
  if (kind === 'bitmap') { // ImageBitmap: draw it to get RGBA pixels (Python composites them: image.paper_colour)
    const refused = s.bridge.check_declared_size(s.session, data.width, data.height); // before a GB-sized canvas
    if (refused) {
      data.close();
      return post({ type: 'error', id, error: JSON.parse(refused).error });
    }
  }
  const signal = { aborted: false };
  state.current = { id, signal };
  s.ort.signal = signal;
  s.ort.onCall = () => post({ type: 'alive', id });
  if (s.lines) s.lines.onCall = s.ort.onCall;
  s.ort.resetStats();
  if (kind === 'bitmap') {
    const canvas = new OffscreenCanvas(data.width, data.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(data, 0, 0);
    ({ width, height } = data);
    data.close();
    data = ctx.getImageData(0, 0, width, height).data.buffer;
    kind = 'rgba';
  }
  const onProgress = (stage, infoJson) => post({ type: 'progress', id, event: { stage, ...JSON.parse(infoJson) } });
  const t0 = performance.now();
  try {
    const bytes = new Uint8Array(data);
    data = null; // only `bytes` holds the input now; nothing of it is kept after the job
    if (kind === 'bytes' && s.bridge.is_pdf(bytes.subarray(0, 1024))) return await recognizeDocument(id, bytes, msg, signal, t0);
    const out = JSON.parse(await s.bridge.recognize(s.session, s.pyWorker, kind, bytes, width ?? 0, height ?? 0, onProgress));
    if (out.error) return post({ type: 'error', id, error: out.error, heapBytes: heapBytes() });
    const wallMs = performance.now() - t0;
    const heap = heapBytes(); // also top-level, as in errors: the client recycles a worker past a limit
    post({ type: 'result', id, result: out.result, heapBytes: heap,
      stats: { wallMs, models: s.ort.stats, copyOutMs: out.bridge.copy_out_ms, heapBytes: heap, threads: s.ort.threadInfo() } });
  } finally {
    state.current = null;
    s.ort.signal = null;
    s.ort.onCall = null;
    if (s.lines) s.lines.onCall = null;
  }
}

// ---- PDF documents: one OCR job per page, inside one client call ------------------------------------------

// pdf_pages.js (and pdf.js with it) is loaded when the first PDF arrives: nothing of it at boot.
const pdfPages = () => import('./pdf_pages.js');

function pyError(json) {
  const { error } = JSON.parse(json);
  return new RettoWorkerError(error.code, error.message);
}

/** A PDF: pdf.js opens it here and the document checks are asked of Python; then the page loop is Python's
 *  (retto.io.document.read_pages through bridge.read_document, the CLI's loop), calling back here for each page's
 *  size, text and pixels (pdf.js). A `page` message carries each page's record and a JPEG of the page (for
 *  display) as soon as it is done; a page that fails gets its error record and the others go on. Resolves with
 *  the document record (retto.io.document). */
async function recognizeDocument(id, bytes, { name, pages: only }, signal, t0) {
  const s = state.ready;
  const { openPdf, pdfPage, renderPage, pageText, closePdf } = await pdfPages();
  await pdfPackages();
  // Measured before pdf.js is given the bytes (it takes the buffer); each page is checked before it is drawn.
  const guard = s.bridge.pdf_guard(s.session, bytes);
  const limits = JSON.parse(s.bridge.pdf_limits(s.session));
  let opened;
  try {
    opened = await openPdf({ assetBase: s.assetBase, manifest: s.manifest, bytes, limits });
  } catch (e) {
    const error = e.code ? pyError(s.bridge.pdf_open_error(guard, e.code, e.message)) : e;
    guard.destroy();
    throw error;
  }
  const { pdf } = opened;
  let current = null; // the page pdf.js has open: {n, page}
  let preview = null; // the current page's JPEG, once drawn
  const settle = async (run) => { // a hook's answer, or {error} instead of a throw (bridge._js_answer)
    try {
      return await run();
    } catch (e) {
      return { error: toErrorPayload(e) };
    }
  };
  const pageOf = async (n) => {
    if (current?.n !== n) current = { n, ...(await pdfPage(pdf, n)) };
    return current;
  };
  const hooks = {
    pageStart: (n, pageCount) => {
      if (signal.aborted) return true;
      preview = null;
      post({ type: 'progress', id, event: { stage: 'page', page: n, pageCount } });
      return false;
    },
    progress: (stage, infoJson, n, pageCount) => post({ type: 'progress', id,
      event: { stage, ...JSON.parse(infoJson), page: n, pageCount } }),
    pageSize: (n) => settle(async () => {
      const { widthPt, heightPt } = await pageOf(n);
      return { widthPt, heightPt };
    }),
    pageText: (n) => settle(async () => JSON.stringify(await pageText((await pageOf(n)).page))),
    renderPage: (n, width, height) => settle(async () => {
      const { page } = await pageOf(n);
      const { canvas, rgba } = await renderPage(page, width, height);
      page.cleanup();
      current = null;
      preview = await previewOf(canvas);
      canvas.width = canvas.height = 0;
      return { rgba: new Uint8Array(rgba) };
    }),
    pageDone: (n, pageCount, recordJson) => {
      post({ type: 'page', id, page: n, pageCount, record: JSON.parse(recordJson), preview });
      preview = null;
    },
  };
  try {
    const checked = JSON.parse(s.bridge.pdf_document_check(guard, opened.pageCount));
    if (checked.error) throw new RettoWorkerError(checked.error.code, checked.error.message);
    const pageCount = checked.page_count;
    const refused = s.bridge.check_page_count(s.session, pageCount);
    if (refused) throw pyError(refused);
    const out = JSON.parse(await s.bridge.read_document(s.session, s.pyWorker, guard, pageCount,
      name || 'document.pdf', JSON.stringify(only ?? null), hooks));
    if (out.error) throw new RettoWorkerError(out.error.code, out.error.message);
    const heap = heapBytes();
    post({ type: 'result', id, result: out.result, heapBytes: heap,
      stats: { wallMs: performance.now() - t0, models: s.ort.stats, pages: pageCount, heapBytes: heap, threads: s.ort.threadInfo() } });
  } finally {
    guard.destroy();
    await closePdf(pdf);
  }
}

/** pypdf (retto.io.pdf_guard's reader), installed with pdf.js when the first PDF arrives. */
function pdfPackages() {
  const s = state.ready;
  if (!s.pdfPackages) {
    s.pdfPackages = installWheels(s.pyodide, (s.manifest.pdf_wheels ?? []).map((f) => new URL(f, s.assetBase).href));
    s.pdfPackages.catch(() => { s.pdfPackages = null; });
  }
  return s.pdfPackages;
}

// A JPEG of each page for the page to show (sent with the page's record, never kept here). The searchable PDF's
// pictures are rendered again at export time and encoded by retto.export.pdf (the CLI's quality).
const PREVIEW_JPEG_QUALITY = 0.85;
const PREVIEW_MAX_SIDE = 1600; // the page shows it a few hundred pixels wide; boxes scale with it (viewBox)

function previewOf(canvas) {
  const scale = Math.min(1, PREVIEW_MAX_SIDE / Math.max(canvas.width, canvas.height));
  let out = canvas;
  if (scale < 1) {
    out = new OffscreenCanvas(Math.max(1, Math.round(canvas.width * scale)), Math.max(1, Math.round(canvas.height * scale)));
    out.getContext('2d').drawImage(canvas, 0, 0, out.width, out.height);
  }
  return out.convertToBlob({ type: 'image/jpeg', quality: PREVIEW_JPEG_QUALITY });
}

// ---- exports: retto.export, the same code the CLI writes its files with ----------------------------------------

/** fpdf2 + defusedxml + fonttools, installed the first time a searchable PDF is asked for (not at boot). */
function exportPackages() {
  const s = state.ready;
  if (!s.exportPackages) {
    s.exportPackages = (async () => {
      // pure-Python wheels whose dependencies the app ships: unpacked into site-packages, no micropip
      await installWheels(s.pyodide, s.manifest.export_wheels.map((f) => new URL(f, s.assetBase).href));
    })();
    s.exportPackages.catch(() => { s.exportPackages = null; });
  }
  return s.exportPackages;
}

/** XlsxWriter, installed the first time a workbook is asked for (not at boot, not with the PDF wheels). */
function xlsxPackages() {
  const s = state.ready;
  if (!s.xlsxPackages) {
    s.xlsxPackages = installWheels(s.pyodide, s.manifest.xlsx_wheels.map((f) => new URL(f, s.assetBase).href));
    s.xlsxPackages.catch(() => { s.xlsxPackages = null; });
  }
  return s.xlsxPackages;
}

const ok = (p) => !p.error;

/** The pictures of a record's pages, in order: an image's own bytes; a PDF's pages rendered again from its bytes
 *  at the size they were read at, as JPEG (so no page pixels are kept between calls). */
async function pagePictures(record, source) {
  const s = state.ready;
  if (!record.pages) return [new Uint8Array(source)];
  const { openPdf, pdfPage, renderPage, closePdf } = await pdfPages();
  const limits = JSON.parse(s.bridge.pdf_limits(s.session));
  const { pdf } = await openPdf({ assetBase: s.assetBase, manifest: s.manifest, bytes: new Uint8Array(source), limits });
  try {
    const out = [];
    for (const p of record.pages.filter(ok)) {
      const { page, widthPt, heightPt } = await pdfPage(pdf, p.page);
      const [, width, height] = JSON.parse(s.bridge.page_size(s.session, widthPt, heightPt)); // as when it was read
      const { canvas, rgba } = await renderPage(page, width, height);
      canvas.width = canvas.height = 0;
      page.cleanup();
      const jpeg = s.bridge.encode_page_jpeg(new Uint8Array(rgba), width, height);
      try {
        out.push(jpeg.toJs());
      } finally {
        jpeg.destroy();
      }
    }
    return out;
  } finally {
    await closePdf(pdf);
  }
}

/** export {record, format, sources, name}: record is one record, or a list (pdf: one multi-page PDF of their
 *  pages; json/text/...: the CLI's stdout for that batch); sources[i]: the input bytes of records[i] (pdf only).
 *  Replies with the file's bytes. */
async function exportRecord(id, { record, format, sources = [], name = null, table = null }) {
  const s = state.ready;
  let bytes;
  if (format.startsWith('table_')) { // one table: text, or a workbook's bytes (a PyProxy of Python bytes)
    if (format === 'table_xlsx') await xlsxPackages();
    const out = s.bridge.export_table(JSON.stringify(record), format, table);
    if (typeof out === 'string') {
      bytes = new TextEncoder().encode(out);
    } else {
      try {
        bytes = out.toJs();
      } finally {
        out.destroy();
      }
    }
  } else if (format === 'pdf') {
    const records = Array.isArray(record) ? record : [record];
    if (records.some((r, i) => ok(r) && !sources[i])) {
      throw new RettoWorkerError('invalid_config', 'a searchable PDF needs the input file of every record');
    }
    await exportPackages();
    const pictures = [];
    for (let i = 0; i < records.length; i++) {
      if (ok(records[i])) pictures.push(...await pagePictures(records[i], sources[i]));
    }
    const pdf = s.bridge.searchable_pdf(JSON.stringify(Array.isArray(record) ? records : record), pictures, name);
    try {
      bytes = pdf.toJs();
    } finally {
      pdf.destroy();
    }
  } else if (Array.isArray(record)) { // the whole queue in one file, as the CLI prints a batch
    bytes = new TextEncoder().encode(s.bridge.export_batch(JSON.stringify(record), format));
  } else {
    bytes = new TextEncoder().encode(s.bridge.export_text(JSON.stringify(record), format, name));
  }
  post({ type: 'result', id, result: bytes.buffer }, [bytes.buffer]);
}

async function runModel(id, { name, data, dims }) {
  await state.ready.ort.allMade();
  const out = await state.ready.ort.run(name, new Float32Array(data), dims);
  const copy = new Float32Array(out.data);
  post({ type: 'result', id, result: { data: copy.buffer, dims: Array.from(out.dims), backend: state.ready.ort.models[name].backend } }, [copy.buffer]);
}

async function runPython(id, { code }) {
  const r = await state.ready.pyodide.runPythonAsync(code);
  const value = r && typeof r.toJs === 'function' ? r.toJs({ dict_converter: Object.fromEntries }) : r;
  r?.destroy?.();
  post({ type: 'result', id, result: value });
}

/** After an unexpected error: is the interpreter still usable? If not, tell the client to replace us. */
function pyodideAlive() {
  try {
    state.ready?.pyodide.runPython('1');
    return true;
  } catch {
    return false;
  }
}

function die(id, message) {
  post({ type: 'fatal', id, error: { code: 'worker_crashed', message: `Python runtime died: ${message}` } });
  self.close();
}

/** os._exit() (or a fatal error) inside a Python task ends the interpreter from a callback of Pyodide's event
 * loop: the job's promise then never settles, and this stray error or rejection is the only sign of it. */
function onStrayError(ev) {
  if (!state.ready || pyodideAlive()) return; // a plain uncaught error: the client's onerror handles it
  ev.preventDefault();
  die(null, String(ev.reason?.message ?? ev.message ?? ev.reason ?? 'the interpreter exited'));
}

const handlers = { init: (id, m) => init(id, m.options).then((info) => {
  post({ type: 'ready', id, info });
  // after ready, before any other call runs: a restored interpreter's site-packages; the sessions made later
  state.ready.writeFiles().catch(() => {});
  state.ready.ort.startDeferred();
}),
  recognize, export: exportRecord, runModel, python: runPython,
  sniff: (id, { head }) => post({ type: 'result', id, result: state.ready.bridge.is_pdf(new Uint8Array(head)) }) };

async function onMessage(ev) {
  const msg = ev.data;
  if (msg.type === 'abort') {
    if (state.current?.id === msg.id) state.current.signal.aborted = true;
    return;
  }
  if (msg.type === 'crash') {
    setTimeout(() => { throw new Error('simulated worker crash (diagnostics)'); });
    return;
  }
  const handler = handlers[msg.type];
  try {
    if (!handler) throw new RettoWorkerError('internal_error', `unknown message ${msg.type}`);
    if (msg.type !== 'init' && !state.ready) throw new RettoWorkerError('internal_error', 'worker is not initialised');
    if (msg.type !== 'init') await state.ready.writeFiles();
    await handler(msg.id, msg);
  } catch (e) {
    const error = toErrorPayload(e);
    if (!pyodideAlive()) return die(msg.id, error.message);
    post({ type: 'error', id: msg.id, error });
  }
}

// onnxruntime-web's pthread workers may be started from this script (bundlers inline ORT's glue); they are
// named em-pthread* and must keep their own onmessage, or inference hangs (docs/facts.md §6).
if (!self.name?.startsWith('em-pthread')) {
  self.onmessage = onMessage;
  self.addEventListener('error', onStrayError);
  self.addEventListener('unhandledrejection', onStrayError);
}
