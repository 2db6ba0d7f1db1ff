// A full run (boot + OCR) makes zero off-origin requests. The fixture fails any test that makes one; this
// test also proves the guard sees the worker's own requests and would catch an off-origin one.
import { expect, test } from '../fixtures.js';

test('a full run stays on the app origin', async ({ app }) => {
  const seen = [];
  app.context.on('request', (r) => seen.push(r.url()));
  await app.open();
  const info = await app.create({ backend: 'auto' });
  const { result } = await app.recognize('baiona.png');
  expect(result.lines.length).toBeGreaterThanOrEqual(15);
  const paths = seen.map((u) => new URL(u).pathname);
  // the worker's loads are visible to the guard (so their absence elsewhere means something)
  for (const p of ['/assets/pyodide/pyodide.asm.wasm', '/assets/pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl',
    '/assets/ort/ort-wasm-simd-threaded.wasm', `/assets/models/${info.modelSet.name}/rec.onnx`]) {
    expect(paths, p).toContain(p);
  }
  expect(paths.some((p) => /^\/assets\/py\/retto-.*\.whl$/.test(p))).toBe(true); // micropip, same origin
  expect(app.offOrigin).toEqual([]);

  // An off-origin fetch from inside the worker never leaves the browser: the Content-Security-Policy
  // (connect-src 'self', scripts/serve_static.mjs) refuses it before any request is made, so the network guard
  // above records nothing, and Python sees the refusal.
  const probe = 'http://127.0.0.1:9/retto-guard-probe';
  const outcome = await app.page.evaluate((url) => window.ocr.evalPython(`
from js import fetch
try:
    await fetch("${url}")
    outcome = "fetched"
except Exception as e:
    outcome = "refused: " + str(e)
outcome
`), probe);
  expect(outcome).toMatch(/^refused: /);
  expect(app.offOrigin).toEqual([]);
});
