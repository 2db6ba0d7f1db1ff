// scripts/bench/litert_vs_ort.mjs's onnxruntime-web engine (a module worker): the app's build and session options
// (wasm, graphOptimizationLevel 'all'), the app's model files. Times each run alone.
import { callInput } from './engine_common.mjs';

let ort;
const sessions = {};
onmessage = async ({ data: m }) => {
  try {
    if (m.init) {
      ort = await import('/__ort__/ort.wasm.min.mjs');
      ort.env.wasm.wasmPaths = new URL('/__ort__/', location.origin).href;
      ort.env.wasm.numThreads = m.init.threads;
      ort.env.logLevel = 'error';
      for (const [role, url] of Object.entries(m.init.models)) {
        const t0 = performance.now();
        sessions[role] = await ort.InferenceSession.create(url, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
        sessions[role].madeMs = performance.now() - t0;
      }
      postMessage({ made: Object.fromEntries(Object.entries(sessions).map(([r, s]) => [r, s.madeMs])) });
      return;
    }
    const { role, dims, file, keep } = m.run;
    const s = sessions[role];
    const x = new ort.Tensor('float32', await callInput(file), dims);
    const t0 = performance.now();
    const out = (await s.run({ [s.inputNames[0]]: x }))[s.outputNames[0]];
    const ms = performance.now() - t0;
    postMessage({ ms, compileMs: 0, out: keep ? out.data : null });
  } catch (e) {
    postMessage({ error: String(e?.stack ?? e) });
  }
};
