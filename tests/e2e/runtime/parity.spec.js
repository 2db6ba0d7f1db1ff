// Parity: typewriter, linn and baiona through the browser (Pyodide + onnxruntime-web wasm) against the native
// pipeline (CLI, onnxruntime CPU) on this machine, with the same numpy 2.0.2 / Pillow 10.2.0 on both sides.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DATA, expect, ROOT, runNative, test } from '../fixtures.js';
import { diffResults } from '../compare.js';

const IMAGES = ['typewriter.png', 'linn.png', 'baiona.png'];
// Each browser result as read, without its wall-clock timings, so two builds can be compared byte for byte
// (scripts/build/check_cli_outputs.py does the same for the CLI).
const RESULTS = join(ROOT, 'test-artefacts', 'parity');

async function keep(image, result) {
  const { timings, ...rest } = result;
  await mkdir(RESULTS, { recursive: true });
  await writeFile(join(RESULTS, `${image}.json`), `${JSON.stringify(rest, null, 1)}\n`);
}

test('browser (wasm) matches native line by line on typewriter, linn, baiona', async ({ engine }) => {
  const nativeOut = runNative(['-m', 'retto', '--images', ...IMAGES.map((f) => join(DATA, f)), '--format', 'json', '--no-progress']);
  const { info } = engine; // the default set on wasm (fixtures.js)
  expect(info.backend).toEqual({ det: 'wasm', cls: 'wasm', rec: 'wasm' });
  expect(info.wasm.crossOriginIsolated).toBe(true);
  expect(info.wasm.threads).toBe(await engine.page.evaluate(() => navigator.hardwareConcurrency));
  const native = Object.fromEntries(JSON.parse(await nativeOut).map((r) => [r.path.split('/').pop(), r]));

  const diffs = [];
  for (const image of IMAGES) {
    const { result, error } = await engine.recognize(image);
    expect(error, `${image}: ${JSON.stringify(error)}`).toBeUndefined();
    expect(native[image].error, `native ${image}`).toBeUndefined();
    expect(native[image].lines.length, `native found text in ${image}`).toBeGreaterThan(10);
    expect(Object.keys(result).sort()).toEqual(Object.keys(native[image]).filter((k) => k !== 'path').sort());
    expect(result.backend).toEqual({ det: 'wasm', cls: 'wasm', rec: 'wasm', orient: 'wasm', reread: 'wasm', layout: 'wasm', table: 'wasm' });
    diffs.push(...diffResults(image, result, native[image]));
    await keep(image, result);
    // Adaptive threads (thread_choice.js): every job says the count in use and why; a probe ran one thread early
    // (its third model call), so these results include calls on both runtimes.
    const { threads } = await engine.page.evaluate(() => window.ocr.lastStats);
    expect([1, info.wasm.threads]).toContain(threads.threads);
    expect(threads.reason).toMatch(/^(1 thread|\d+ threads): /);
    expect(threads.calls).toBeGreaterThan(3);
  }
  expect(info.wasm.adaptive).toBe(true);
  expect(diffs, `browser vs native differences:\n${diffs.join('\n')}`).toEqual([]);
});

// The default set's accuracy stages in the browser: stacks read row by row (the answer key), white text on a
// transparent PNG (paper colour), word breaks restored and doubtful lines re-read by the larger recogniser
// (the receipt), a ruled table found by tables "auto" and read row by row. Same lines, boxes, page angle,
// regions and cells as the native CLI.
const HARD = ['hard_short_entries.png', 'hard_white_on_transparent.png', 'hard_receipt.png', 'hard_table_ruled.png'];

test('browser (wasm) matches native on the hard pages the accuracy stages change', async ({ engine }) => {
  const pages = join(DATA, '..', 'testset', 'pages');
  const nativeOut = runNative(['-m', 'retto', '--images', ...HARD.map((f) => join(pages, f)), '--format', 'json', '--no-progress']);
  const native = Object.fromEntries(JSON.parse(await nativeOut).map((r) => [r.path.split('/').pop(), r]));
  const diffs = [];
  for (const image of HARD) {
    const bytes = await readFile(join(pages, image));
    const { result, error } = await engine.recognize(bytes);
    expect(error, `${image}: ${JSON.stringify(error)}`).toBeUndefined();
    expect(native[image].lines.length, `native found text in ${image}`).toBeGreaterThan(3);
    diffs.push(...diffResults(image, result, native[image]));
    const grid = (r) => r.tables.map((t) => [t.rows, t.cols, t.cells.map((c) => [c.row, c.col, c.text])]);
    expect(grid(result), `${image}: tables`).toEqual(grid(native[image]));
    expect(result.regions.map((r) => [r.type, r.lines]), `${image}: regions`).toEqual(native[image].regions.map((r) => [r.type, r.lines]));
    await keep(image, result);
  }
  expect(native['hard_short_entries.png'].timings.stacks, 'the answer key went through the stacks stage').toBeGreaterThan(0);
  expect(native['hard_receipt.png'].timings.infer.reread, 'the receipt had doubtful lines re-read').toBeGreaterThan(0);
  expect(native['hard_table_ruled.png'].tables.length, 'tables "auto" found the ruled table').toBe(1);
  expect(native['hard_receipt.png'].timings.infer.layout, 'tables "auto" left the receipt alone').toBeUndefined();
  expect(diffs, `browser vs native differences:\n${diffs.join('\n')}`).toEqual([]);
});
