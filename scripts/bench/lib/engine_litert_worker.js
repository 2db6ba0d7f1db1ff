// scripts/bench/litert_vs_ort.mjs's LiteRT.js engine (a classic worker: LiteRT.js loads its glue with
// importScripts; bundled by the benchmark because @litertjs/core imports a bare specifier).
// LiteRT.js 2.5.3 compiles a model for the input shape stored in the file and sizes its output buffers from the
// file, and it has no call to resize either. So each new input shape gets a copy of the file with the input's and
// the output's shapes written in (tflite_shape.mjs; the output shapes come from the native check of
// scripts/bench/tflite_models.py) and its own compiled model, kept until the benchmark clears them. The compile is
// part of that call's time, as it would be in an app: few shapes repeat across a page's calls. A role keeps its
// last KEEP compiled models (det one: three page-sized det models overran the wasm memory and failed to invoke).
self.Module = { mainScriptUrlOrBlob: '/__litert__/litert_wasm_threaded_internal.js', locateFile: (p) => `/__litert__/${p}` };
import { loadAndCompile, loadLiteRt, Tensor } from '@litertjs/core';
import { callInput } from './engine_common.mjs';
import { withShapes } from './tflite_shape.mjs';

const bytes = {};
const compiled = new Map(); // in order of last use
const KEEP = { det: 1 };
let threads = 1;

function remember(role, key, model) {
  compiled.set(key, model);
  const mine = [...compiled.keys()].filter((k) => k.startsWith(`${role}@`));
  for (const old of mine.slice(0, Math.max(0, mine.length - (KEEP[role] ?? 8)))) {
    compiled.get(old).delete();
    compiled.delete(old);
  }
}
onmessage = async ({ data: m }) => {
  try {
    if (m.init) {
      threads = m.init.threads;
      await loadLiteRt('/__litert__/', { threads: threads > 1 });
      for (const [key, url] of Object.entries(m.init.models)) bytes[key] = new Uint8Array(await (await fetch(url)).arrayBuffer());
      postMessage({ made: {} });
      return;
    }
    if (m.clear) {
      for (const model of compiled.values()) model.delete();
      compiled.clear();
      postMessage({});
      return;
    }
    const { role, dims, file, out: outDims, keep } = m.run;
    const data = await callInput(file);
    const t0 = performance.now();
    const fileKey = bytes[`${role}@${dims[0]}`] ? `${role}@${dims[0]}` : `${role}@*`;
    const key = `${fileKey}:${dims.join('x')}`;
    let model = compiled.get(key);
    if (model) {
      compiled.delete(key); // to the end: the last used
      compiled.set(key, model);
    } else {
      model = await loadAndCompile(withShapes(bytes[fileKey], dims, outDims),
        { accelerator: 'wasm', cpuOptions: { numThreads: threads } });
      remember(role, key, model);
    }
    const t1 = performance.now();
    const input = new Tensor(data, dims);
    const outs = await model.run(input);
    const result = outs[0].toTypedArray();
    const ms = performance.now() - t0;
    input.delete();
    for (const t of outs) t.delete();
    postMessage({ ms, compileMs: t1 - t0, out: keep ? result : null });
  } catch (e) {
    postMessage({ error: String(e?.stack ?? e) });
  }
};
