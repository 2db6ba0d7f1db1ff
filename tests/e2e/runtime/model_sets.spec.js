// Every shipped model set, in the browser (wasm) against native (CLI --models NAME), line by line; the browser
// downloads only the chosen set, and every result names the set that read it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA, DIST, expect, runNative, test } from '../fixtures.js';
import { diffResults } from '../compare.js';

const MANIFEST = JSON.parse(readFileSync(join(DIST, 'assets', 'manifest.json'), 'utf8'));
// The sets of onnx models; the Tesseract line sets (their lines read by the wasm Tesseract) are
// tesseract_sets.spec.js's, compared with native under that engine's own bound.
const SETS = Object.keys(MANIFEST.model_sets).filter((n) => !MANIFEST.model_sets[n].set.line_rec);
// One image a set: the default set's parity on full pages is parity.spec.js's; here each set's own models and
// dictionary are what is checked (baiona.png: 17 lines, Latin and accented map labels).
const IMAGES = ['baiona.png'];

test('the build ships every onnx model set and names one default', () => {
  expect(SETS.sort()).toEqual(['ppocr-v4', 'ppocr-v5-mobile', 'ppocr-v6-small', 'ppocr-v6-tiny']);
  expect(SETS).toContain(MANIFEST.default_model_set);
});

for (const name of SETS) {
  test(`${name}: browser (wasm) matches native line by line, and only its files are fetched`, async ({ app }) => {
    const nativeOut = runNative(['-m', 'retto', '--models', name, '--images', ...IMAGES.map((f) => join(DATA, f)),
      '--format', 'json', '--no-progress']);
    const modelRequests = [];
    app.page.on('request', (req) => { if (req.url().includes('/assets/models/')) modelRequests.push(new URL(req.url()).pathname); });
    await app.open();
    const info = await app.create({ backend: 'wasm', models: name });
    expect(info.modelSet.name).toBe(name);
    expect(info.backend).toEqual({ det: 'wasm', cls: 'wasm', rec: 'wasm' });
    const native = Object.fromEntries(JSON.parse(await nativeOut).map((r) => [r.path.split('/').pop(), r]));
    const diffs = [];
    for (const image of IMAGES) {
      const { result, error } = await app.recognize(image);
      expect(error, `${image}: ${JSON.stringify(error)}`).toBeUndefined();
      expect(native[image].error, `native ${image}`).toBeUndefined();
      expect(native[image].lines.length, `native found text in ${image}`).toBeGreaterThan(10);
      expect(result.model_set).toBe(name);
      expect(native[image].model_set).toBe(name);
      diffs.push(...diffResults(`${name} ${image}`, result, native[image]));
    }
    expect(diffs, `browser vs native differences:\n${diffs.join('\n')}`).toEqual([]);
    // Every file of the set but the layout and table models, which are fetched only when config.layout.regions /
    // layout.tables is on (off by default; tables.spec.js checks they come then), and the page-orientation model,
    // which is asked only when a page's lines do not already show it upright (baiona.png is upright;
    // layout.spec.js reads turned pages, which fetch it).
    const expected = Object.entries(MANIFEST.model_sets[name].files)
      .filter(([role]) => !['layout', 'table', 'orient'].includes(role))
      .map(([, f]) => `/assets/${f.file}`).sort();
    expect([...new Set(modelRequests)].sort()).toEqual(expected);
  });
}

test('an unknown model set is refused with invalid_config and the list of sets', async ({ app }) => {
  await app.open();
  const err = await app.page.evaluate(async () => {
    try {
      await window.Retto.create({ backend: 'wasm', models: 'klingon' });
      return null;
    } catch (e) {
      return { code: e.code, message: e.message };
    }
  });
  expect(err.code).toBe('invalid_config');
  for (const name of SETS) expect(err.message).toContain(name);
});
