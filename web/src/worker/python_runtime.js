// Boots Pyodide once from the app's own origin: numpy + Pillow from the trimmed lock, the pyclipper shim, and the
// retto wheel unpacked straight into site-packages (no micropip: it would cost a package load and an import for
// one pure-Python wheel whose dependencies are already there). Returns the pyodide instance and retto.bridge.
import shimSource from './pyclipper_shim.py?raw';
import { fetchBytes } from './assets.js';
import { offsetGroups } from './clipper_offset.js';
import { dropSnapshot, loadSnapshot, snapshotKey, storeSnapshot } from './python_snapshot.js';

/** The files loadPyodide fetches (or imports) itself, under assets/pyodide/. */
export const PYODIDE_CORE = ['pyodide.mjs', 'pyodide.asm.js', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];

/** onStep(name): 'python' when the interpreter runs with numpy + Pillow, 'retto' when the wheel is in.
 * snapshot: start from (and keep) a memory snapshot of the bare interpreter (python_snapshot.js). */
export async function bootPython({ assetBase, manifest, log, onStep = () => {}, snapshot = true }) {
  const indexURL = new URL('pyodide/', assetBase).href;
  const wheel = fetchBytes(new URL(manifest.retto_wheel, assetBase)); // alongside the interpreter's own downloads
  wheel.catch(() => {}); // awaited below
  const { loadPyodide } = await import(/* @vite-ignore */ `${indexURL}pyodide.mjs`);
  const { pyodide, start } = await startInterpreter(loadPyodide, { indexURL, manifest, log, snapshot });
  await pyodide.loadPackage(manifest.pyodide.packages, { messageCallback: () => {} });
  onStep('python');
  pyodide.registerJsModule('_retto_clipper', { offsetGroups });
  const site = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  pyodide.FS.writeFile(`${site}/pyclipper.py`, shimSource);
  installWheel(pyodide, await wheel, site);
  const bridge = pyodide.pyimport('retto.bridge');
  onStep('retto');
  const versions = JSON.parse(pyodide.runPython(`
import json, sys, numpy, PIL, retto
json.dumps({"python": sys.version.split()[0], "numpy": numpy.__version__, "pillow": PIL.__version__,
            "retto": getattr(retto, "__version__", "")})`));
  return { pyodide, bridge, versions, start, stampShapes: shapeStamper(pyodide) };
}

/** The bare interpreter: restored from the stored snapshot when there is one, else started and snapshotted.
 * start: 'snapshot' | 'fresh'. */
async function startInterpreter(loadPyodide, { indexURL, manifest, log, snapshot }) {
  const options = { indexURL, stdout: (m) => log('stdout', m), stderr: (m) => log('stderr', m) };
  if (!snapshot) return { pyodide: await loadPyodide(options), start: 'fresh' };
  const key = snapshotKey(manifest, PYODIDE_CORE);
  const stored = await loadSnapshot(key);
  if (stored) {
    try {
      return { pyodide: await loadPyodide({ ...options, _loadSnapshot: stored }), start: 'snapshot' };
    } catch (e) {
      log('stderr', `the stored Python snapshot did not load (${e.message}); starting afresh`);
      await dropSnapshot();
    }
  }
  const pyodide = await loadPyodide({ ...options, _makeSnapshot: true });
  storeSnapshot(key, pyodide.makeMemorySnapshot()); // before any package or JS module: see python_snapshot.js
  return { pyodide, start: 'fresh' };
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
 * retto.onnx_stamp.stamp_shapes (WebGL sessions need one model per input shape). */
function shapeStamper(pyodide) {
  const stamp = pyodide.runPython(`
from retto.onnx_stamp import stamp_shapes
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
