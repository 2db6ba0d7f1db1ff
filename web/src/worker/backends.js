// Backend registry: small named objects with a priority. Choosing and falling back is one loop in one place
// (createModelSession); the backend that actually runs each model is reported in every result.
// WebGL and a WebGPU canary slot in by registering more entries (with their ORT runtime file).

const registry = new Map();

/**
 * name: reported in results; priority: higher is tried first by backend 'auto';
 * runtimes: ORT entry files (in assets/ort/) that can run it, preferred first;
 * executionProviders: passed to InferenceSession.create; smokeTest: run a tiny input after creating a session
 * (catches kernels a GPU EP cannot run, which surface only at the first run);
 * probe(): {ok, reason?, info?} — can this browser run it at all.
 */
export function registerBackend(backend) {
  registry.set(backend.name, backend);
}

registerBackend({
  name: 'webgpu',
  priority: 20,
  runtimes: ['ort.min.mjs'], // CPU + JSEP WebGPU build
  executionProviders: ['webgpu'],
  smokeTest: true,
  async probe({ explicit }) {
    if (!('gpu' in navigator)) return { ok: false, reason: 'WebGPU is not available in this browser (navigator.gpu missing)' };
    let adapter = null;
    try {
      adapter = await navigator.gpu.requestAdapter();
    } catch (e) {
      return { ok: false, reason: `WebGPU requestAdapter failed: ${e.message}` };
    }
    if (!adapter) return { ok: false, reason: 'WebGPU has no adapter (GPU blocked or disabled)' };
    const info = adapter.info || {};
    const fallbackAdapter = Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter);
    const details = { vendor: info.vendor || '', architecture: info.architecture || '', fallbackAdapter };
    // A software adapter (SwiftShader) is correct but 100-1000x slower than wasm: 'auto' skips it.
    if (fallbackAdapter && !explicit) {
      return { ok: false, reason: 'WebGPU adapter is a software fallback (slower than wasm); skipped by auto', info: details };
    }
    return { ok: true, info: details };
  },
});

registerBackend({
  name: 'wasm',
  priority: 0,
  runtimes: ['ort.wasm.min.mjs', 'ort.min.mjs'], // CPU-only build (half the download) when it suffices
  executionProviders: ['wasm'],
  smokeTest: false,
  async probe() {
    return { ok: true };
  },
});

export const MODEL_NAMES = ['det', 'cls', 'rec'];

/** backend option → {det: [names…], cls: […], rec: […]} in the order to try. */
export function candidatesFor(option) {
  const byPriority = [...registry.values()].filter((b) => b.auto !== false)
    .sort((a, b) => b.priority - a.priority).map((b) => b.name);
  const one = (choice) => {
    if (choice === 'auto') return byPriority;
    if (!registry.has(choice)) throw Object.assign(new Error(`unknown backend ${JSON.stringify(choice)}`), { code: 'invalid_config' });
    return [choice];
  };
  const perModel = typeof option === 'object' && option !== null ? option : {};
  return Object.fromEntries(MODEL_NAMES.map((m) => [m, one(perModel[m] ?? (typeof option === 'string' ? option : 'auto'))]));
}

/** Probe every backend that some model may use; drop the unusable ones (keeping why). */
export async function planBackends(option) {
  const wanted = candidatesFor(option);
  const names = [...new Set(Object.values(wanted).flat())];
  const explicitNames = new Set(typeof option === 'string' ? [option]
    : Object.values(option ?? {}).filter((c) => c !== 'auto'));
  const probes = {};
  for (const n of names) probes[n] = await registry.get(n).probe({ explicit: explicitNames.has(n) });
  const usable = Object.fromEntries(MODEL_NAMES.map((m) => [m, wanted[m].filter((n) => probes[n].ok)]));
  // One ORT runtime must serve every backend in use: the first file, in preference order, they all support.
  const inUse = [...new Set(Object.values(usable).flat())].map((n) => registry.get(n));
  const runtime = inUse.length === 0 ? null
    : inUse[0].runtimes.concat(...inUse.map((b) => b.runtimes)).find((f) => inUse.every((b) => b.runtimes.includes(f)));
  return { wanted, usable, probes, runtime };
}

export function getBackend(name) {
  return registry.get(name);
}
