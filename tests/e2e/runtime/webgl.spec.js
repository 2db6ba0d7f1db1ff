// The GPU backends for real, in Chromium on this machine's software renderers (SwiftShader for both WebGL and
// WebGPU, so inputs stay small): each one runs the whole pipeline on a one-label crop of baiona.png with a small
// det side (det.limit_side_len: a 736 px det takes about a minute on SwiftShader WebGL, and a small crop needs no
// more) and must read the label (WebGL) or the texts wasm gives in the same browser (WebGPU, whose cls output is
// also compared with wasm's number by number); the WebGPU canary's failure path (a perturbed output, caught by the
// real comparison); and what `auto` picks and says.
import { expect, test } from '../fixtures.js';
import { BAIONA_ONE_LABEL, cropPng } from '../crops.js';

/** Boot Retto with `options` as window[name] in the page; returns its info. */
async function boot(app, name, options) {
  return app.page.evaluate(async ({ name, options }) => {
    window[name] = await window.Retto.create(options);
    return window[name].info;
  }, { name, options });
}

const texts = (result) => result.lines.map((l) => l.text);

/** A deterministic small cls batch: 2 crops of 48x192, values in the normalised range [-1, 1]. */
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

// WebGL runs the sets whose set file says so (their ops have WebGL kernels after the rewrites): PP-OCRv4 here.
test('webgl: the full pipeline on a real crop reads its printed label; every model ran on WebGL; a new bucket made mid-job while the heap grows', async ({ app }) => {
  const png = await cropPng('baiona.png', BAIONA_ONE_LABEL);
  // The 120x120 crop upscaled to a 128 px det input, which is the smallest det bucket at this det side (the bucket
  // ladder follows det.limit_side_len), and batches of 1 (its one line): cls and rec buckets of batch 1, not 6. On
  // SwiftShader a 4x48x320 rec batch took about 21 s of this test's read; one line is a quarter of that.
  const config = { det: { limit_side_len: 128 }, cls: { batch_size: 1 }, rec: { batch_size: 1 } };
  await app.open();
  const info = await boot(app, 'gl', { backend: 'webgl', models: 'ppocr-v4', config });
  expect(info.backend).toEqual({ det: 'webgl', cls: 'webgl', rec: 'webgl' });
  // The det ladder starts at the configured side; the default ladder's larger sides follow; the cls and rec
  // buckets hold the configured batch.
  expect(info.webglBuckets.det_sides).toEqual([128, 736, 832, 1024, 1216, 1536, 1984]);
  expect(info.webglBuckets.batches).toEqual({ cls: 1, rec: 1 });
  expect(info.runtime).toBe('ort.all.min.mjs'); // WebGL + the wasm the canary compares against
  expect(info.probes.webgl.info.renderer).toMatch(/SwiftShader/); // what this machine has
  for (const m of ['det', 'cls', 'rec']) expect(info.canary[m].webgl.ok, JSON.stringify(info.canary[m])).toBe(true);
  expect(info.canary.det.webgl.input).toEqual([1, 3, 64, 64]); // small: bucket sessions come later, lazily
  expect(info.canary.rec.webgl.argmaxMismatches).toBe(0);

  // The first image is the first of its det bucket (128x128): that bucket's session
  // is stamped (in Pyodide) while Python awaits the run, and it must succeed on the first try. What a real page
  // does by itself, made certain: the Python heap grows while the bucket model is stamped (a big page leaves
  // little free heap), and growing wasm memory detaches every typed-array view of it taken before.
  await app.page.evaluate(() => window.gl.evalPython(`
import pyodide_js
_stamp = _retto_stamp.__globals__["stamp_shapes"]
def _stamp_growing_the_heap(*args):
    size, hold = pyodide_js._module.HEAPU8.length, []
    while pyodide_js._module.HEAPU8.length == size:
        hold.append(bytearray(16 << 20))
    del hold
    return _stamp(*args)
_retto_stamp.__globals__["stamp_shapes"] = _stamp_growing_the_heap`));
  const gl = await app.recognize(png, { ocr: 'gl' });
  expect(gl.error).toBeUndefined();
  expect(gl.result.backend).toEqual({ det: 'webgl', cls: 'webgl', rec: 'webgl', layout: 'wasm', table: 'wasm' });
  expect(gl.result.warnings).toEqual([]);
  // Right: the crop's one label as printed on the map (the truth itself; the WebGPU test below shows wasm reads
  // this crop alike).
  expect(texts(gl.result)).toEqual(['Hiriburu']);
  for (const m of ['det', 'cls', 'rec']) expect(gl.stats.models[m].calls, m).toBeGreaterThan(0);
  // Python called the models through the bucket padding (one session per shape), not with raw shapes.
  const wrapped = await app.page.evaluate(() => window.gl.evalPython(
    'import gc, retto.browser.buckets as b; [type(o).__name__ for o in gc.get_objects() if isinstance(o, b.BucketWorker)]'));
  expect(wrapped).toEqual(['BucketWorker']);
});

test('webgl is refused for a set WebGL cannot run (PP-OCRv6: Erf), with the set file\'s reason', async ({ app }) => {
  await app.open();
  const err = await app.page.evaluate(() => window.Retto.create({ backend: 'webgl', models: 'ppocr-v6-tiny' })
    .then(() => null, (e) => ({ code: e.code, message: e.message })));
  expect(err.code).toBe('backend_unavailable');
  expect(err.message).toMatch(/Erf/);
});

test.describe('with --enable-unsafe-webgpu (SwiftShader)', () => {
  test.use({ webgpu: true });

  test('webgpu: the full pipeline on a one-label crop gives the texts wasm gives; cls outputs within 1e-4 of wasm', async ({ app }) => {
    const png = await cropPng('baiona.png', BAIONA_ONE_LABEL);
    const config = { det: { limit_side_len: 128 } }; // the 120x120 crop's det input: 128x128, not 736x736
    const { data, dims } = clsInput();
    await app.open();
    await boot(app, 'wasm', { backend: 'wasm', config });
    const ref = await app.recognize(png, { ocr: 'wasm' });
    expect(ref.result.lines.length).toBe(1);
    const clsOn = (name) => app.page.evaluate(async ({ name, data, dims }) => {
      const out = await window[name].runModel('cls', data, dims);
      return { ...out, data: Array.from(out.data) };
    }, { name, data, dims });
    const clsWasm = await clsOn('wasm');
    await app.page.evaluate(() => window.wasm.terminate());

    const info = await boot(app, 'gpu', { backend: 'webgpu', config });
    expect(info.backend).toEqual({ det: 'webgpu', cls: 'webgpu', rec: 'webgpu' });
    expect(info.runtime).toBe('ort.min.mjs'); // the JSEP build that has WebGPU
    expect(info.probes.webgpu.info.fallbackAdapter).toBe(true);
    for (const m of ['det', 'cls', 'rec']) expect(info.canary[m].webgpu.ok, JSON.stringify(info.canary[m])).toBe(true);
    const gpu = await app.recognize(png, { ocr: 'gpu' });
    expect(gpu.error).toBeUndefined();
    // The set's optional models (page orientation, re-reading) always run on wasm.
    expect(gpu.result.backend).toEqual({ det: 'webgpu', cls: 'webgpu', rec: 'webgpu', orient: 'wasm', reread: 'wasm', layout: 'wasm', table: 'wasm' });
    expect(texts(gpu.result)).toEqual(texts(ref.result));

    // One model called directly on a batch of its own: the same probabilities on both backends.
    const clsGpu = await clsOn('gpu');
    expect([clsWasm.backend, clsGpu.backend]).toEqual(['wasm', 'webgpu']);
    expect([clsWasm.dims, clsGpu.dims]).toEqual([[2, 2], [2, 2]]);
    const worst = Math.max(...clsWasm.data.map((v, i) => Math.abs(v - clsGpu.data[i])));
    expect(worst).toBeLessThanOrEqual(1e-4);
    // real probabilities, not zeros: each row sums to 1
    for (let r = 0; r < 2; r++) expect(clsGpu.data[2 * r] + clsGpu.data[2 * r + 1]).toBeCloseTo(1, 4);
  });

  test('a WebGPU rec canary mismatch sends rec to wasm, says so, and the texts stay right', async ({ app }) => {
    const png = await cropPng('baiona.png', BAIONA_ONE_LABEL);
    const config = { det: { limit_side_len: 128 } }; // a 128x128 det input: what is checked here is rec's fallback
    await app.open();

    // The hook changes one time step's winning class in WebGPU's canary output for rec, as a wrong kernel would;
    // the canary's own argmax comparison has to notice it.
    const info = await boot(app, 'mixed', { backend: { det: 'wasm', cls: 'webgpu', rec: 'webgpu' }, config,
      diagnostics: { perturbCanary: { backend: 'webgpu', model: 'rec' } } });
    expect(info.backend).toEqual({ det: 'wasm', cls: 'webgpu', rec: 'wasm' });
    expect(info.canary.rec.webgpu.ok).toBe(false);
    expect(info.canary.rec.webgpu.argmaxMismatches).toBe(1);
    expect(info.canary.cls.webgpu.ok).toBe(true);
    expect(info.canary.det).toBeUndefined(); // det was asked on wasm: nothing to check
    expect(info.fallbacks.rec.join(' ')).toMatch(/webgpu: canary failed: 1 of \d+ time steps/);
    expect(info.warnings).toEqual([expect.stringMatching(/^rec: the webgpu canary failed .* so rec runs on wasm$/)]);

    const mixed = await app.recognize(png, { ocr: 'mixed' });
    expect(mixed.error).toBeUndefined();
    expect(mixed.result.backend).toEqual({ det: 'wasm', cls: 'webgpu', rec: 'wasm', orient: 'wasm', reread: 'wasm', layout: 'wasm', table: 'wasm' });
    expect(mixed.result.warnings).toEqual(info.warnings);
    // Right: the crop's one label as printed on the map (the truth itself, so no wasm reference instance; the
    // test above shows wasm and WebGPU read this crop alike).
    expect(texts(mixed.result)).toEqual(['Hiriburu']);
  });

  // On ppocr-v4, a set every backend can run (the PP-OCRv6 sets have no WebGL variant).
  test('auto: skips software renderers and says why; with them allowed, WebGPU then WebGL then wasm by canary', async ({ app }) => {
    await app.open();
    const plain = await boot(app, 'a1', { backend: 'auto', models: 'ppocr-v4' });
    expect(plain.backend).toEqual({ det: 'wasm', cls: 'wasm', rec: 'wasm' });
    expect(plain.runtime).toBe('ort.wasm.min.mjs'); // no GPU backend in play: the small CPU-only runtime
    expect(plain.probes.webgpu.ok).toBe(false); // a software (fallback) adapter is found, and not taken
    expect(plain.probes.webgpu.info.fallbackAdapter).toBe(true);
    for (const m of ['det', 'cls', 'rec']) {
      expect(plain.fallbacks[m]).toEqual([expect.stringMatching(/^webgpu: .*software fallback/),
        expect.stringMatching(/^webgl: WebGL renderer is software \(.*SwiftShader.*\)/)]);
    }
    await app.page.evaluate(() => window.a1.terminate());

    // Software renderers allowed (a machine with real GPUs): each model takes the first backend whose canary
    // passes, all three cases in one instance (one boot instead of two). det's WebGPU canary passes, so det runs on
    // WebGPU; cls's WebGPU output is perturbed, so cls must land on WebGL; rec's is perturbed on both GPUs, so rec
    // lands on wasm. (auto given per model here, as one string above.)
    const order = await boot(app, 'a2', { backend: { det: 'auto', cls: 'auto', rec: 'auto' }, models: 'ppocr-v4',
      diagnostics: { allowSoftware: true, perturbCanary: [{ backend: 'webgpu', model: 'cls' },
        { backend: 'webgpu', model: 'rec' }, { backend: 'webgl', model: 'rec' }] } });
    expect(order.backend).toEqual({ det: 'webgpu', cls: 'webgl', rec: 'wasm' });
    expect(order.runtime).toBe('ort.all.min.mjs');
    expect(order.canary.cls.webgpu.ok).toBe(false);
    expect(order.canary.cls.webgl.ok).toBe(true);
    expect(order.canary.det.webgl).toBeUndefined(); // WebGPU passed for det: WebGL never tried
    expect(order.fallbacks.rec).toEqual([expect.stringMatching(/^webgpu: canary failed: 1 of \d+ time steps/),
      expect.stringMatching(/^webgl: canary failed: 1 of \d+ time steps/)]);
    expect(order.warnings).toEqual([expect.stringMatching(/^cls: the webgpu canary failed .*runs on webgl$/),
      expect.stringMatching(/^rec: the webgpu canary failed .*runs on wasm$/),
      expect.stringMatching(/^rec: the webgl canary failed .*runs on wasm$/)]);
  });
});
