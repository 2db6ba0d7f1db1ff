// The OCR web worker: boots Pyodide + onnxruntime-web once, then runs the unchanged py/retto pipeline per job.
// Message protocol (client.js is the only sender):
//   in:  init {options: {assetBase, backend, models, config, threads, diagnostics}} | recognize {kind, data, width, height} | abort {id} | runModel {name, data, dims}
//        | python {code} (diagnostics) | crash (diagnostics: simulates an uncaught worker error)
//   out: progress {event} | alive (a model call started: the client's watchdog) | ready {info}
//        | result {result, stats} | error {error:{code, message}} | fatal {error}
import { fetchManifest, fetchModels, fetchWebglModels, modelSetEntry } from './assets.js';
import { RettoWorkerError, toErrorPayload } from './errors.js';
import { OrtModels } from './ort_bridge.js';
import { bootPython } from './python_runtime.js';

const state = { ready: null, current: null };

function post(msg, transfer = []) {
  self.postMessage(msg, transfer);
}

function sumSizes(manifest, prefix) {
  return Object.entries(manifest.files).filter(([f]) => f.startsWith(prefix)).reduce((a, [, m]) => a + m.size, 0);
}

async function init(id, options) {
  const t0 = performance.now();
  const assetBase = options.assetBase;
  const manifest = await fetchManifest(assetBase);
  const modelSet = modelSetEntry(manifest, options.models);
  const pySize = sumSizes(manifest, 'pyodide/') + sumSizes(manifest, 'py/');
  const modelSize = Object.values(modelSet.files).reduce((a, f) => a + f.size, 0);
  let total = pySize + modelSize;
  let loaded = 0;
  const progress = (file, bytes) => {
    loaded += bytes;
    post({ type: 'progress', id, event: { stage: 'load', file, loaded, total } });
  };
  const timings = {};
  const python = bootPython({ assetBase, manifest, log: (stream, m) => (stream === 'stderr' ? console.warn : console.log)(`[py] ${m}`) })
    .then((r) => { timings.python = performance.now() - t0; progress('python runtime', pySize); return r; });
  python.catch(() => {}); // awaited below; if the models fail first, that error is the one reported
  const { dict: dictionary, ...modelBytes } = await fetchModels(assetBase, modelSet, (n) => progress('models', n));
  timings.models = performance.now() - t0;
  const loadWebgl = () => { // only when WebGL may run a model: its variants are another 16-22 MB
    if (modelSet.webgl) total += sumSizes(manifest, modelSet.webgl.replace(/[^/]*$/, ''));
    return fetchWebglModels(assetBase, manifest, modelSet, (n) => progress('WebGL models', n));
  };
  const stamp = async (bytes, input, output) => (await python).stampShapes(bytes, input, output);
  const ort = await OrtModels.create({ assetBase, backend: options.backend ?? 'auto', threads: options.threads, modelBytes,
    inputs: modelSet.set.inputs, loadWebgl, stamp, diagnostics: options.diagnostics });
  timings.ort = performance.now() - t0;
  const py = await python;
  const versions = {
    ...py.versions,
    pyodide: py.pyodide.version,
    'onnxruntime-web': ort.ort.env.versions?.web ?? manifest.versions['onnxruntime-web'],
    models: Object.fromEntries(['det', 'cls', 'rec'].map((r) => [r, `${modelSet.set.files[r].version} sha256:${modelSet.set.files[r].sha256.slice(0, 12)}`])),
  };
  const extra = { warnings: ort.info.warnings, buckets: ort.info.webglBuckets };
  const pair = py.bridge.create_session(ort, JSON.stringify(modelSet.set), modelBytes.rec, dictionary ?? null,
    JSON.stringify(ort.info.backend), JSON.stringify(versions), JSON.stringify(extra), JSON.stringify(options.config ?? {}));
  const session = pair.get(0);
  const pyWorker = pair.get(1);
  pair.destroy();
  timings.ready = performance.now() - t0;
  state.ready = { ...py, ort, session, pyWorker, versions };
  const { name, bytes, set } = modelSet;
  const maxPixels = py.bridge.max_pixels(session);
  return { ...ort.info, versions, timings, limits: { maxPixels }, heapBytes: heapBytes(),
    modelSet: { name, label: set.label, summary: set.summary, languages: set.languages, bytes, webgl: set.webgl } };
}

/** Pyodide's wasm heap in bytes: it grows and never shrinks, so the client recycles a worker past a limit. */
function heapBytes() {
  return state.ready?.pyodide._module.HEAPU8.length ?? 0;
}

async function recognize(id, msg) {
  const s = state.ready;
  let { kind, data, width, height } = msg;
  if (kind === 'bitmap') { // ImageBitmap: draw it to get RGBA pixels (Python composites them on white)
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
    const out = JSON.parse(await s.bridge.recognize(s.session, s.pyWorker, kind, bytes, width ?? 0, height ?? 0, onProgress));
    if (out.error) return post({ type: 'error', id, error: out.error, heapBytes: heapBytes() });
    const wallMs = performance.now() - t0;
    const heap = heapBytes(); // also top-level, as in errors: the client recycles a worker past a limit
    post({ type: 'result', id, result: out.result, heapBytes: heap,
      stats: { wallMs, models: s.ort.stats, copyOutMs: out.bridge.copy_out_ms, heapBytes: heap } });
  } finally {
    state.current = null;
    s.ort.signal = null;
    s.ort.onCall = null;
  }
}

async function runModel(id, { name, data, dims }) {
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

const handlers = { init: (id, m) => init(id, m.options).then((info) => post({ type: 'ready', id, info })),
  recognize, runModel, python: runPython };

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
    await handler(msg.id, msg);
  } catch (e) {
    const error = toErrorPayload(e);
    if (!pyodideAlive()) return die(msg.id, error.message);
    post({ type: 'error', id: msg.id, error });
  }
}

// onnxruntime-web's pthread workers may be started from this script (bundlers inline ORT's glue); they are
// named em-pthread* and must keep their own onmessage, or inference hangs (FACTS §6).
if (!self.name?.startsWith('em-pthread')) {
  self.onmessage = onMessage;
  self.addEventListener('error', onStrayError);
  self.addEventListener('unhandledrejection', onStrayError);
}
