// Retto.createPool: a pool of 2 workers reads an image and a 3-page PDF given together (recognizeAll), and the
// PDF alone (its pages spread over both workers), with the native CLI's records: the same lines per page, pages
// in order, in the order given. Small inputs (tests/e2e/make_small_inputs.py); throughput is measured by
// scripts/bench_pool.mjs, not here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve_static.mjs';
import { diffResults } from './compare.js';
import { DIST, expect, launchChromium, runNative, test } from './fixtures.js';

test('a pool of 2 workers gives the native records, in order, for files and PDF pages', async () => {
  const inputs = mkdtempSync(join(tmpdir(), 'retto-pool-'));
  JSON.parse(await runNative(['tests/e2e/make_small_inputs.py', inputs]));
  const nativeOut = runNative(['-m', 'retto', '--images', join(inputs, 'lines.png'), join(inputs, 'pages.pdf'),
    '--format', 'json', '--no-progress']);
  const server = await startServer({ dir: DIST, isolation: true, mounts: { '/__testdata__/': inputs } });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const offOrigin = [];
    page.on('request', (req) => { if (!req.url().startsWith(server.url) && /^https?:/.test(req.url())) offOrigin.push(req.url()); });
    await page.goto(`${server.url}dev.html?boot=0`);
    await page.waitForFunction(() => window.Retto);
    const out = await page.evaluate(async () => {
      const get = async (f) => new File([await (await fetch(`/__testdata__/${f}`)).arrayBuffer()], f);
      const [image, pdf] = [await get('lines.png'), await get('pages.pdf')];
      const pool = await window.Retto.createPool({ workers: 2, backend: 'wasm' });
      try {
        const pagesSeen = [];
        const both = await pool.recognizeAll([image, pdf]);
        const alone = await pool.recognize(pdf, { onPage: ({ page: n }) => pagesSeen.push(n) });
        return { size: pool.size, both, alone, pagesSeen };
      } finally {
        pool.terminate();
      }
    });
    const [nativeImage, nativePdf] = JSON.parse(await nativeOut);
    expect(out.size).toBe(2);
    expect(nativePdf.page_count).toBe(3);
    const diffs = diffResults('lines.png', out.both[0], nativeImage);
    for (const [label, record] of [['recognizeAll', out.both[1]], ['recognize', out.alone]]) {
      const { pages, ...rest } = record;
      const { pages: nativePages, path, ...nativeRest } = nativePdf;
      expect(rest, label).toEqual({ ...nativeRest, path: 'pages.pdf' });
      expect(pages.map((p) => p.page), label).toEqual([1, 2, 3]);
      pages.forEach((p, i) => diffs.push(...diffResults(`${label} page ${p.page}`, p, nativePages[i])));
    }
    expect(out.pagesSeen.sort(), 'onPage ran for every page').toEqual([1, 2, 3]);
    expect(diffs, diffs.join('\n')).toEqual([]);
    expect(offOrigin).toEqual([]);
  } finally {
    await browser.close();
    await server.close();
    rmSync(inputs, { recursive: true, force: true });
  }
});
