// Backend selection without a GPU: the auto fallback and its reason. (WebGPU and WebGL on this machine's software
// renderers: webgl.spec.js; the single-threaded fallback without COOP/COEP: serving.spec.js, under the CSP.)
import { expect, test } from '../fixtures.js';

// Also the network guard's own check: the fixture fails any test that makes an off-origin request; this test
// shows the guard sees the worker's own requests and that an off-origin one would never leave the browser.
test('without WebGPU, auto falls back to wasm per model and says why; webgpu alone is refused; a full run stays on the app origin', async ({ app }) => {
  const seen = [];
  app.context.on('request', (r) => seen.push(r.url()));
  await app.open();
  const info = await app.create({ backend: 'auto' });
  expect(info.backend).toEqual({ det: 'wasm', cls: 'wasm', rec: 'wasm' });
  for (const m of ['det', 'cls', 'rec']) expect(info.fallbacks[m].join(' ')).toMatch(/^webgpu: .*WebGPU/);
  expect(info.runtime).toBe('ort.wasm.min.mjs'); // no WebGPU: the smaller CPU-only runtime is loaded
  const { result } = await app.recognize('baiona.png');
  expect(result.lines.length).toBeGreaterThanOrEqual(15);
  expect(result.backend).toEqual({ det: 'wasm', cls: 'wasm', rec: 'wasm', orient: 'wasm', reread: 'wasm', layout: 'wasm', table: 'wasm' });
  const err = await app.page.evaluate(() => window.Retto.create({ backend: 'webgpu' }).then(
    () => null, (e) => ({ code: e.code, message: e.message })));
  expect(err.code).toBe('backend_unavailable');
  expect(err.message).toMatch(/WebGPU/);

  // The worker's loads are visible to the guard (so their absence elsewhere means something).
  const paths = seen.map((u) => new URL(u).pathname);
  for (const p of ['/assets/pyodide/pyodide.asm.wasm', '/assets/pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl',
    '/assets/ort/ort-wasm-simd-threaded.wasm', `/assets/models/${info.modelSet.name}/rec.onnx`]) {
    expect(paths, p).toContain(p);
  }
  expect(paths.some((p) => /^\/assets\/py\/retto-.*\.whl$/.test(p))).toBe(true); // micropip, same origin
  expect(app.offOrigin).toEqual([]);
  // An off-origin fetch from inside the worker never leaves the browser: the Content-Security-Policy
  // (connect-src 'self', scripts/serve_static.mjs) refuses it before any request is made, so the network guard
  // records nothing, and Python sees the refusal.
  const outcome = await app.page.evaluate((url) => window.ocr.evalPython(`
from js import fetch
try:
    await fetch("${url}")
    outcome = "fetched"
except Exception as e:
    outcome = "refused: " + str(e)
outcome
`), 'http://127.0.0.1:9/retto-guard-probe');
  expect(outcome).toMatch(/^refused: /);
  expect(app.offOrigin).toEqual([]);
});
