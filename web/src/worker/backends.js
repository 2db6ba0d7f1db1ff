// Backend registry: small named objects with a priority. Choosing and falling back is one loop in one place
// (OrtModels.create in ort_bridge.js); the backend that actually runs each model is reported in every result.
// GPU backends carry `canary: true`: at init each model they run is checked against wasm on a canary input
// (canary.js); a mismatch sends that model to the next backend in line (finally wasm).

import pythonFacts from '../generated/python_facts.json'; // generated from retto.browser.facts at build time

const registry = new Map();

/**
 * name: reported in results; priority: higher is tried first by backend 'auto';
 * runtimes: ORT entry files (in assets/ort/) that can run it, preferred first;
 * executionProviders: passed to InferenceSession.create;
 * canary: compare each model against wasm at init (canary.js; also catches kernels a GPU EP cannot run, which
 * surface only at the first run); fixedShapes: its sessions accept one input shape
 * each, so it runs the WebGL model variants through shape buckets (webgl_sessions.js);
 * probe({explicit, allowSoftware}): {ok, reason?, info?} — can this browser run it at all. `auto` skips software
 * renderers (SwiftShader: correct but far slower than wasm) unless diagnostics allow them.
 */
export function registerBackend(backend) {
  registry.set(backend.name, backend);
}

registerBackend({
  name: 'webgpu',
  priority: 20,
  runtimes: ['ort.min.mjs', 'ort.all.min.mjs'], // CPU + JSEP WebGPU build (/all adds WebGL)
  executionProviders: ['webgpu'],
  canary: true,
  async probe({ explicit, allowSoftware }) {
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
    if (fallbackAdapter && !explicit && !allowSoftware) {
      return { ok: false, reason: 'WebGPU adapter is a software fallback (slower than wasm); skipped by auto', info: details };
    }
    return { ok: true, info: details };
  },
});

const SOFTWARE_GL = /SwiftShader|llvmpipe|softpipe|Software|Microsoft Basic Render/i;

registerBackend({
  name: 'webgl',
  priority: 10,
  runtimes: ['ort.all.min.mjs'], // /webgl alone has no wasm, which the canary and the fallback need
  executionProviders: ['webgl'],
  canary: true,
  fixedShapes: true,
  async probe({ explicit, allowSoftware }) {
    if (typeof OffscreenCanvas === 'undefined') return { ok: false, reason: 'WebGL: no OffscreenCanvas in this worker' };
    const gl = new OffscreenCanvas(1, 1).getContext('webgl2');
    if (!gl) return { ok: false, reason: 'WebGL 2 is not available (GPU blocked or disabled)' };
    const debug = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(gl.getParameter(debug ? debug.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    const software = SOFTWARE_GL.test(renderer);
    const floats = Boolean(gl.getExtension('EXT_color_buffer_float'));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    const details = { renderer, software };
    if (!floats) return { ok: false, reason: 'WebGL 2 lacks EXT_color_buffer_float (float textures)', info: details };
    if (software && !explicit && !allowSoftware) {
      return { ok: false, reason: `WebGL renderer is software (${renderer}; slower than wasm); skipped by auto`, info: details };
    }
    return { ok: true, info: details };
  },
});

registerBackend({
  name: 'wasm',
  priority: 0,
  // CPU-only build (half the download) when it suffices; the others when a GPU backend shares the runtime
  runtimes: ['ort.wasm.min.mjs', 'ort.min.mjs', 'ort.all.min.mjs'],
  executionProviders: ['wasm'],
  async probe() {
    return { ok: true };
  },
});

export const MODEL_NAMES = pythonFacts.model_roles; // det, cls, rec (retto.models.sets.ROLES)
/** A set's optional models (page orientation, the re-reading recogniser, page regions, table structure:
 * retto.models.sets.OPTIONAL_ROLES, generated at build time): always on wasm, fetched and made on their first use
 * (OrtModels.prepare), so they cost nothing at boot. */
export const OPTIONAL_MODELS = pythonFacts.optional_model_roles;

/** What each ORT entry file loads besides itself (assets/ort/): the CPU-only build never fetches the 28 MB JSEP
 * (WebGPU) wasm; a GPU backend's runtime brings the JSEP build instead of the CPU one (it runs wasm too). */
export const RUNTIME_FILES = {
  'ort.wasm.min.mjs': ['ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'],
  'ort.min.mjs': ['ort-wasm-simd-threaded.jsep.mjs', 'ort-wasm-simd-threaded.jsep.wasm'],
  'ort.all.min.mjs': ['ort-wasm-simd-threaded.jsep.mjs', 'ort-wasm-simd-threaded.jsep.wasm'],
};

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

/** Probe every backend that some model may use; drop the unusable ones (keeping why).
 * allowSoftware (diagnostics): let `auto` use software GPU renderers, to exercise the order on such machines. */
export async function planBackends(option, { allowSoftware = false } = {}) {
  const wanted = candidatesFor(option);
  const names = [...new Set(Object.values(wanted).flat())];
  const explicitNames = new Set(typeof option === 'string' ? [option]
    : Object.values(option ?? {}).filter((c) => c !== 'auto'));
  const probes = {};
  for (const n of names) probes[n] = await registry.get(n).probe({ explicit: explicitNames.has(n), allowSoftware });
  const usable = Object.fromEntries(MODEL_NAMES.map((m) => [m, wanted[m].filter((n) => probes[n].ok)]));
  // One ORT runtime must serve every backend in use: the first file, in preference order, they all support.
  // A canary backend needs wasm too (its reference, and where a model goes when its canary fails).
  const running = new Set(Object.values(usable).flat());
  if ([...running].some((n) => registry.get(n).canary)) running.add('wasm');
  const inUse = [...running].map((n) => registry.get(n));
  const runtime = inUse.length === 0 ? null
    : inUse[0].runtimes.concat(...inUse.map((b) => b.runtimes)).find((f) => inUse.every((b) => b.runtimes.includes(f)));
  return { wanted, usable, probes, runtime };
}

export function getBackend(name) {
  return registry.get(name);
}
