// Boots Pyodide once from the app's own origin, with numpy + Pillow, the pyclipper shim and retto: every wheel is
// unpacked straight into site-packages (no loadPackage, no micropip), then the modules retto needs are imported.
// That state is kept as a whole-interpreter memory snapshot (python_snapshot.js), so a warm start restores it
// instead of loading and importing anything. Returns the pyodide instance and retto.browser.bridge.
import shimSource from './pyclipper_shim.py?raw';
import { fetchBytes, fetchChecked, sha256Hex } from './assets.js';
import { offsetGroups } from './clipper_offset.js';
import { writeWheels } from './wheel_files.js';
import { dropSnapshot, loadSnapshot, recordLibraries, replayLibraries, snapshotKey, storeSnapshot } from './python_snapshot.js';

/** The files loadPyodide fetches (or imports) itself, under assets/pyodide/. */
export const PYODIDE_CORE = ['pyodide.mjs', 'pyodide.asm.js', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];

/** What the snapshot holds imported: retto's modules a job uses, numpy, and Pillow with its common plugins.
 * numpy.ma too: numpy imports it lazily inside np.median (reading order), which cost a restored worker's first page
 * about 0.5 s of compiling in Pyodide. python_snapshot.spec.js checks that a page's read imports nothing more. */
const IMPORTS = `
import numpy, numpy.ma, PIL, PIL.Image, PIL.ImageOps
PIL.Image.preinit()
import retto, retto.browser.bridge, retto.pipeline.session, retto.browser.buckets, retto.models.sets, retto.io.document, retto.models.onnx_stamp
import importlib; importlib.invalidate_caches()
`;
/** C calls into numpy and Pillow: a restored heap whose libraries are misplaced fails here, not in a job. */
const RESTORE_CHECK = `
import numpy, PIL.Image
assert int(numpy.arange(10, dtype=numpy.float32).sum()) == 45
assert PIL.Image.new("L", (3, 2), 7).resize((6, 4)).getpixel((5, 3)) == 7
`;

/** The JS module Python imports as _retto_clipper: one object for the whole worker, so a snapshot that
 * references it is given the same object back on restore. */
const CLIPPER = { offsetGroups };
const SNAPSHOT_JS = { serializer(obj) {
  if (obj === CLIPPER) return { retto: 'clipper' };
  if (obj === CLIPPER.offsetGroups) return { retto: 'offsetGroups' };
  throw new Error('the Python heap references a JS object the snapshot cannot name');
}, deserializer: (ref) => ({ clipper: CLIPPER, offsetGroups: CLIPPER.offsetGroups })[ref?.retto] ?? null };

/** onStep(name): 'python' when the interpreter runs with numpy + Pillow, 'retto' when retto is importable;
 * mark(phase): a finer boot phase, for the timeline. snapshot: restore from (and keep) the whole-interpreter memory
 * snapshot. start: 'snapshot' | 'fresh'. A restored interpreter's site-packages (not part of the snapshot: numpy,
 * Pillow and retto are already imported from the heap) are fetched and written by writeFiles(), which the caller
 * runs after it reports ready and awaits before the first job (a wheel that fails its sha256 fails that job, code
 * model_integrity); a fresh interpreter has them already. */
export async function bootPython({ assetBase, manifest, log, onStep = () => {}, mark = () => {}, snapshot = true }) {
  const indexURL = new URL('pyodide/', assetBase).href;
  // The interpreter's own files start at once, beside the snapshot's read (both starts need them): the glue
  // imported, pyodide.asm.wasm compiled while it streams in, the standard library and the lock fetched.
  const early = loadRuntimeFiles(indexURL, mark);
  const wheelFiles = [...Object.keys(manifest.files).filter((f) => f.startsWith('pyodide/') && f.endsWith('.whl')).sort(),
    manifest.retto_wheel];
  // Each checked against the manifest (as loadPackage checked the lock's). A fresh start needs them to import, so
  // they start as soon as it is known there is no snapshot; a restored interpreter has numpy, Pillow and retto in its
  // heap, so they are fetched by writeFiles(), after ready (fetching and hashing 16 MB on this thread cost about
  // 60 ms of a warm start).
  let fetching = null;
  const fetchWheels = () => (fetching ??= wheelFiles.map((f) => {
    const bytes = fetchChecked(new URL(f, assetBase), manifest.files[f].sha256, f);
    bytes.catch(() => {}); // awaited together by writeSitePackages, which reports the first failure
    return bytes;
  }));
  const options = { indexURL, stdout: (m) => log('stdout', m), stderr: (m) => log('stderr', m) };
  const key = snapshot ? await snapshotKey(manifest, PYODIDE_CORE, [shimSource, IMPORTS], sha256Hex) : null;
  const stored = snapshot ? await loadSnapshot(key, sha256Hex) : null;
  mark('snapshot read');
  let booted = null;
  if (stored) {
    try {
      booted = { ...await restore(indexURL, options, stored, fetchWheels, early, mark), start: 'snapshot' };
    } catch (e) {
      log('stderr', `the stored Python snapshot did not restore (${e.message}); starting afresh`);
      await dropSnapshot();
    }
  }
  if (!booted) {
    // after a failed restore the early responses are spent: loadPyodide fetches those two files itself
    const files = stored ? { ...early, responses: new Map() } : early;
    fetchWheels(); // started now, awaited by startFresh
    const pyodide = await startFresh(indexURL, options, fetchWheels, key, files, mark);
    booted = { pyodide, writeFiles: async () => {}, start: 'fresh' };
  }
  const { pyodide, start } = booted;
  onStep('python');
  const bridge = pyodide.pyimport('retto.browser.bridge');
  onStep('retto');
  const versions = JSON.parse(pyodide.runPython(`
import json, sys, numpy, PIL, retto
json.dumps({"python": sys.version.split()[0], "numpy": numpy.__version__, "pillow": PIL.__version__,
            "retto": getattr(retto, "__version__", "")})`));
  let files = null;
  // A failed fetch or check is forgotten, so the next call tries again (a network that came back, a cache that
  // served a damaged copy); nothing is written until every wheel is in and checked.
  const writeFiles = () => (files ??= booted.writeFiles().then(() => mark('site-packages written'), (e) => {
    files = null;
    fetching = null;
    throw e;
  }));
  return { pyodide, bridge, versions, start, writeFiles, stampShapes: shapeStamper(pyodide) };
}

const sitePackages = (pyodide) => pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");

/** The files loadPyodide would fetch itself, started now: {asm: the glue imported, wasm: pyodide.asm.wasm compiled
 * (streaming, from the HTTP cache when warm, so Chromium's cache of compiled code applies), responses: url ->
 * Promise<Response> for the standard library and the lock}. */
function loadRuntimeFiles(indexURL, mark) {
  const asm = import(/* @vite-ignore */ `${indexURL}pyodide.asm.js`); // defines globalThis._createPyodideModule
  const wasm = WebAssembly.compileStreaming(fetch(`${indexURL}pyodide.asm.wasm`)).then((m) => { mark('python wasm compiled'); return m; });
  const responses = new Map(['python_stdlib.zip', 'pyodide-lock.json'].map((f) => [`${indexURL}${f}`, fetch(`${indexURL}${f}`)]));
  for (const p of [asm, wasm, ...responses.values()]) p.catch(() => {}); // awaited (or re-fetched) by loadRuntime
  return { asm, wasm, responses };
}

/** loadPyodide over the early files: its own fetches of them are answered with the responses already under way,
 * and its wasm is instantiated from the module already compiled. afterCreate(Module) runs once the runtime is
 * created, before Pyodide boots Python in it (or copies a snapshot's heap in). */
async function loadRuntime(indexURL, options, early, afterCreate = async () => {}, mark = () => {}) {
  await early.asm;
  const create = globalThis._createPyodideModule;
  if (typeof create !== 'function') throw new Error('pyodide.asm.js did not define _createPyodideModule');
  const original = self.fetch;
  const restoreFetch = () => { if (self.fetch === answerEarly) self.fetch = original; };
  function answerEarly(input, init) {
    const url = new URL(input instanceof Request ? input.url : String(input), self.location.href).href;
    if (url === `${indexURL}pyodide.asm.wasm`) return Promise.resolve(new Response(null, { status: 204 })); // unused: instantiated below
    const early = popEarly(url);
    return early ?? original.call(self, input, init);
  }
  const popEarly = (url) => {
    const r = early.responses.get(url);
    early.responses.delete(url);
    return r;
  };
  let failed;
  const failure = new Promise((_, reject) => { failed = reject; });
  globalThis._createPyodideModule = async (settings) => {
    restoreFetch(); // loadPyodide has made its requests by now
    settings.instantiateWasm = (imports, done) => {
      early.wasm.then((module) => WebAssembly.instantiate(module, imports).then((instance) => {
        mark('python wasm instantiated');
        done(instance, module);
      })).catch(failed); // Emscripten would wait for ever
      return {};
    };
    const Module = await Promise.race([create(settings), failure]);
    await afterCreate(Module);
    return Module;
  };
  self.fetch = answerEarly;
  try {
    const { loadPyodide } = await import(/* @vite-ignore */ `${indexURL}pyodide.mjs`);
    return await loadPyodide(options);
  } finally {
    restoreFetch();
    globalThis._createPyodideModule = create;
  }
}

/** A new interpreter: unpack every wheel, import, and (key given) snapshot it and store that at once. */
async function startFresh(indexURL, options, fetchWheels, key, early, mark) {
  const pyodide = await loadRuntime(indexURL, { ...options, ...(key ? { _makeSnapshot: true } : {}) }, early, async () => mark('python runtime made'), mark);
  mark('python booted');
  const site = sitePackages(pyodide);
  pyodide.registerJsModule('_retto_clipper', CLIPPER);
  await writeSitePackages(pyodide, site, fetchWheels);
  mark('site-packages written');
  pyodide.runPython(IMPORTS);
  mark('imported');
  if (key) {
    try {
      const meta = { ...recordLibraries(pyodide._module), site };
      const heap = pyodide.makeMemorySnapshot({ serializer: SNAPSHOT_JS.serializer });
      const libs = Object.fromEntries(meta.libs.map((l) => [l.name, pyodide.FS.readFile(l.name)]));
      storeSnapshot(key, meta, heap, libs, sha256Hex); // copied at once; stored while the boot goes on
      mark('snapshot made');
    } catch (e) {
      options.stderr(`no Python snapshot this time (${e.message})`);
    }
  }
  return pyodide;
}

/** The stored interpreter: its libraries compiled while the runtime loads, placed again before its heap is
 * copied in (python_snapshot.js). Its site-packages are written back into the (not snapshotted) file system by
 * writeFiles(), later. */
async function restore(indexURL, options, stored, fetchWheels, early, mark) {
  const compiled = Promise.all(Object.entries(stored.libs).map(async ([name, bytes]) => [name, await WebAssembly.compile(bytes)]))
    .then(Object.fromEntries);
  compiled.catch(() => {}); // awaited below
  const pyodide = await loadRuntime(indexURL, { ...options, _loadSnapshot: stored.heap,
    _snapshotDeserializer: SNAPSHOT_JS.deserializer }, early, async (Module) => {
    mark('python runtime made');
    await stored.intact;
    replayLibraries(Module, stored.meta, await compiled);
    mark('libraries placed');
  }, mark);
  mark('heap restored');
  pyodide.runPython(RESTORE_CHECK);
  return { pyodide, writeFiles: () => writeSitePackages(pyodide, stored.meta.site, fetchWheels) };
}

/** Every wheel (fetchWheels(): their checked bytes, as promises) and the pyclipper shim into site-packages (the
 * file system is not part of a snapshot). */
async function writeSitePackages(pyodide, site, fetchWheels) {
  await writeWheels(pyodide.FS, site, await Promise.all(fetchWheels()));
  pyodide.FS.writeFile(`${site}/pyclipper.py`, shimSource);
  pyodide.runPython('import importlib; importlib.invalidate_caches()');
}

/** A pure-Python wheel, unpacked into site-packages as it is (its .dist-info included): what an installer does
 * for such a wheel, minus resolving dependencies, which the app ships itself. */
export function installWheel(pyodide, bytes, site = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']")) {
  pyodide.unpackArchive(bytes, 'wheel', { extractDir: site });
  pyodide.runPython('import importlib; importlib.invalidate_caches()');
}

/** Several wheels from our origin (e.g. the export's, on first use), fetched in parallel, then installed. */
export async function installWheels(pyodide, urls) {
  const all = await Promise.all(urls.map((u) => fetchBytes(u)));
  for (const bytes of all) installWheel(pyodide, bytes);
}

/** (model bytes, input shape, output shape) -> the model with that static shape stamped in, by
 * retto.models.onnx_stamp.stamp_shapes (WebGL sessions need one model per input shape). */
function shapeStamper(pyodide) {
  const stamp = pyodide.runPython(`
from retto.models.onnx_stamp import stamp_shapes
def _retto_stamp(model, input_shape, output_shape):
    return stamp_shapes(model.to_bytes(), [int(d) for d in input_shape], [int(d) for d in output_shape])
_retto_stamp`);
  return (bytes, input, output) => {
    const out = stamp(bytes, input, output);
    try {
      return out.toJs(); // Python bytes -> a Uint8Array copy
    } finally {
      out.destroy();
    }
  };
}
