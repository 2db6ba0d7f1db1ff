// Backend selection: WebGPU (SwiftShader here, so tiny inputs only) against wasm, the auto fallback and its
// reason, and the single-threaded fallback when the page is not cross-origin isolated.
import { join } from 'node:path';
import { DATA, expect, runNative, test } from '../fixtures.js';

// A deterministic small cls batch: 2 crops of 48x192, values in the normalised range [-1, 1].
function clsInput() {
  const dims = [2, 3, 48, 192];
  const data = new Float32Array(dims.reduce((a, b) => a * b));
  let s = 12345;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    data[i] = (s / 2147483648) * 2 - 1;
  }
  return { data: Array.from(data), dims };
}

test.describe('with --enable-unsafe-webgpu', () => {
  test.use({ webgpu: true });

  test('cls on WebGPU matches wasm within 1e-4', async ({ app }) => {
    await app.open();
    // auto skips a software (fallback) adapter, and says so; it runs everything on wasm.
    const auto = await app.create({ backend: 'auto' });
    expect(auto.backend).toEqual({ det: 'wasm', cls: 'wasm', rec: 'wasm' });
    expect(auto.probes.webgpu.ok).toBe(false);
    expect(auto.probes.webgpu.info.fallbackAdapter).toBe(true);
    expect(auto.fallbacks.cls.join(' ')).toMatch(/webgpu: .*software fallback/);

    const { data, dims } = clsInput();
    const out = await app.page.evaluate(async ({ data, dims }) => {
      const wasm = await window.ocr.runModel('cls', data, dims);
      // Explicitly asked for, WebGPU runs cls even on a software adapter.
      const gpu = await window.Retto.create({ backend: { det: 'wasm', cls: 'webgpu', rec: 'wasm' } });
      const web = await gpu.runModel('cls', data, dims);
      const info = gpu.info;
      gpu.terminate();
      return { wasm: { ...wasm, data: Array.from(wasm.data) }, webgpu: { ...web, data: Array.from(web.data) }, info };
    }, { data, dims });
    expect(out.info.backend).toEqual({ det: 'wasm', cls: 'webgpu', rec: 'wasm' });
    expect(out.info.runtime).toBe('ort.min.mjs'); // the JSEP build that has WebGPU
    expect(out.wasm.backend).toBe('wasm');
    expect(out.webgpu.backend).toBe('webgpu');
    expect(out.webgpu.dims).toEqual([2, 2]);
    expect(out.wasm.dims).toEqual([2, 2]);
    const worst = Math.max(...out.wasm.data.map((v, i) => Math.abs(v - out.webgpu.data[i])));
    expect(worst).toBeLessThanOrEqual(1e-4);
    // real probabilities, not zeros: each row sums to 1
    for (let r = 0; r < 2; r++) expect(out.webgpu.data[2 * r] + out.webgpu.data[2 * r + 1]).toBeCloseTo(1, 4);
  });
});

test('without WebGPU, auto falls back to wasm per model and says why; webgpu alone is refused', async ({ app }) => {
  await app.open();
  const info = await app.create({ backend: 'auto' });
  expect(info.backend).toEqual({ det: 'wasm', cls: 'wasm', rec: 'wasm' });
  for (const m of ['det', 'cls', 'rec']) expect(info.fallbacks[m].join(' ')).toMatch(/^webgpu: .*WebGPU/);
  expect(info.runtime).toBe('ort.wasm.min.mjs'); // no WebGPU: the smaller CPU-only runtime is loaded
  const { result } = await app.recognize('baiona.png');
  expect(result.backend).toEqual({ det: 'wasm', cls: 'wasm', rec: 'wasm', orient: 'wasm', reread: 'wasm', layout: 'wasm', table: 'wasm' });
  const err = await app.page.evaluate(() => window.Retto.create({ backend: 'webgpu' }).then(
    () => null, (e) => ({ code: e.code, message: e.message })));
  expect(err.code).toBe('backend_unavailable');
  expect(err.message).toMatch(/WebGPU/);
});

test('without COOP/COEP it runs single-threaded, says why, and still matches native', async ({ app }) => {
  const nativeOut = runNative(['-m', 'retto', '--images', join(DATA, 'baiona.png'), '--format', 'json', '--no-progress']);
  await app.open({ isolated: false });
  expect(await app.page.evaluate(() => self.crossOriginIsolated)).toBe(false);
  const info = await app.create({ backend: 'wasm' });
  expect(info.wasm.crossOriginIsolated).toBe(false);
  expect(info.wasm.threads).toBe(1);
  expect(info.wasm.threadsReason).toMatch(/not cross-origin isolated.*COOP\/COEP/);
  const { result, error } = await app.recognize('baiona.png');
  expect(error).toBeUndefined();
  const [native] = JSON.parse(await nativeOut);
  expect(result.lines.map((l) => l.text)).toEqual(native.lines.map((l) => l.text));
  expect(native.lines.length).toBeGreaterThanOrEqual(15);
});
