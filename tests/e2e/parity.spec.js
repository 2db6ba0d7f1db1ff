// Parity: typewriter, linn and baiona through the browser (Pyodide + onnxruntime-web wasm) against the native
// pipeline (CLI, onnxruntime CPU) on this machine, with the same numpy 2.0.2 / Pillow 10.2.0 on both sides.
import { join } from 'node:path';
import { DATA, expect, runNative, test } from './fixtures.js';
import { diffResults } from './compare.js';

const IMAGES = ['typewriter.png', 'linn.png', 'baiona.png'];

test('browser (wasm) matches native line by line on typewriter, linn, baiona', async ({ app }) => {
  const nativeOut = runNative(['-m', 'retto', '--images', ...IMAGES.map((f) => join(DATA, f)), '--format', 'json', '--no-progress']);
  await app.open();
  const info = await app.create({ backend: 'wasm' });
  expect(info.backend).toEqual({ det: 'wasm', cls: 'wasm', rec: 'wasm' });
  expect(info.wasm.crossOriginIsolated).toBe(true);
  expect(info.wasm.threads).toBe(await app.page.evaluate(() => navigator.hardwareConcurrency));
  const native = Object.fromEntries(JSON.parse(await nativeOut).map((r) => [r.path.split('/').pop(), r]));

  const diffs = [];
  for (const image of IMAGES) {
    const { result, error } = await app.recognize(image);
    expect(error, `${image}: ${JSON.stringify(error)}`).toBeUndefined();
    expect(native[image].error, `native ${image}`).toBeUndefined();
    expect(native[image].lines.length, `native found text in ${image}`).toBeGreaterThan(10);
    expect(Object.keys(result).sort()).toEqual(Object.keys(native[image]).filter((k) => k !== 'path').sort());
    expect(result.backend).toEqual({ det: 'wasm', cls: 'wasm', rec: 'wasm', orient: 'wasm', reread: 'wasm' });
    diffs.push(...diffResults(image, result, native[image]));
  }
  expect(diffs, `browser vs native differences:\n${diffs.join('\n')}`).toEqual([]);
});
