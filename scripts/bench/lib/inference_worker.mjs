// The browser side of scripts/bench/inference.mjs --browser: runs inference_core.mjs's loop in a worker,
// each onnxruntime-web build imported from the folder the benchmark's server mounts it at.
import { runLevers } from './inference_core.mjs';

onmessage = async ({ data: job }) => {
  const runtimes = {};
  try {
    const roles = await runLevers({ ...job,
      runtime: async (name) => {
        const base = name === 'dev' ? '/__ortdev__/' : '/__ort__/';
        if (!runtimes[base]) {
          const ort = await import(`${base}ort.wasm.min.mjs`);
          ort.env.wasm.wasmPaths = new URL(base, location.origin).href;
          ort.env.wasm.numThreads = job.threads;
          ort.env.logLevel = 'error';
          runtimes[base] = ort;
        }
        return runtimes[base];
      },
      calls: async (role) => Promise.all(job.calls[role].map(async (c) => ({ dims: c.dims,
        data: new Float32Array(await (await fetch(`/__inputs__/${c.file}`)).arrayBuffer()) }))),
      model: async (role) => new Uint8Array(await (await fetch(`/__assets__/${job.models[role]}`)).arrayBuffer()),
      log: (line) => console.log(line) });
    postMessage({ roles });
  } catch (e) {
    postMessage({ error: String(e?.stack ?? e) });
  }
};
