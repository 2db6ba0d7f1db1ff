// Boots Pyodide once from the app's own origin: numpy + Pillow from the trimmed lock, the pyclipper shim,
// and the retto wheel installed by micropip. Returns the pyodide instance and retto.bridge.
import shimSource from './pyclipper_shim.py?raw';
import { offsetGroups } from './clipper_offset.js';

export async function bootPython({ assetBase, manifest, log }) {
  const indexURL = new URL('pyodide/', assetBase).href;
  const { loadPyodide } = await import(/* @vite-ignore */ `${indexURL}pyodide.mjs`);
  const pyodide = await loadPyodide({
    indexURL,
    packages: manifest.pyodide.packages, // fetched while the interpreter bootstraps
    stdout: (m) => log('stdout', m),
    stderr: (m) => log('stderr', m),
  });
  pyodide.registerJsModule('_retto_clipper', { offsetGroups });
  const site = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  pyodide.FS.writeFile(`${site}/pyclipper.py`, shimSource);
  const micropip = pyodide.pyimport('micropip');
  // deps=False: numpy/Pillow come from the lock and pyclipper is the shim; nothing may be looked up elsewhere.
  await micropip.install.callKwargs(new URL(manifest.retto_wheel, assetBase).href, { deps: false });
  micropip.destroy();
  const bridge = pyodide.pyimport('retto.bridge');
  const versions = JSON.parse(pyodide.runPython(`
import json, sys, numpy, PIL, retto
json.dumps({"python": sys.version.split()[0], "numpy": numpy.__version__, "pillow": PIL.__version__,
            "retto": getattr(retto, "__version__", "")})`));
  return { pyodide, bridge, versions, stampShapes: shapeStamper(pyodide) };
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
