// Hostile PDFs in the browser (issue 23): each probe's bad page is refused by retto.pdf_guard (run in Pyodide,
// before pdf.js draws it) with the error the native CLI gives for the same file, the good page is read as
// natively, and the renderer's resident memory stays bounded. Probes: tests/py/hostile_pdfs.py (the native tests'
// maker), written at test time. Memory is the Chromium renderer processes' VmHWM (peak resident set) from /proc.
import { join } from 'node:path';
import { DATA, expect, runNative, test } from './fixtures.js';

const DIR = join(DATA, 'generated', 'hostile'); // served at /__testdata__/generated/hostile/
const TIMEOUT = 6 * 60_000;

/** Resident memory (VmRSS, VmHWM) of every Chromium renderer process of this browser, in MB (Linux). */
async function rendererPeakMB(app) {
  const { readFileSync } = await import('node:fs');
  const cdp = await app.context.browser().newBrowserCDPSession();
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  await cdp.detach();
  return Math.max(...processInfo.filter((p) => p.type === 'renderer').map(({ id }) => {
    const status = readFileSync(`/proc/${id}/status`, 'utf8');
    return Math.round(Number(status.match(/VmHWM:\s+(\d+) kB/)[1]) / 1024);
  }));
}

test('hostile PDFs: the bad page is pdf_page_too_complex as natively, the good page reads, renderer under 1.5 GB', async ({ app }) => {
  test.setTimeout(TIMEOUT);
  const names = JSON.parse(await runNative([join('tests', 'py', 'hostile_pdfs.py'), DIR]));
  // Exit code 1 (every document has a failed page) is the expected outcome: take its output all the same.
  const out = await runNative(['-m', 'retto', '--inputs', DIR, '--format', 'jsonl', '--no-progress'])
    .catch((e) => { if (e.code !== 1) throw e; return e.stdout; });
  const native = Object.fromEntries(out.trim().split('\n').map((line) => JSON.parse(line))
    .map((r) => [r.path.split('/').at(-1), r]));
  await app.open();
  await app.create({ backend: 'wasm' });
  const seen = {};
  for (const name of names) {
    const got = await app.recognize(`generated/hostile/${name}`);
    expect(got.error, name).toBeUndefined();
    const [bad, good] = got.result.pages;
    seen[name] = bad.error?.code;
    expect(bad.error, name).toEqual(native[name].pages[0].error);
    expect(good.lines.map((l) => l.text), name).toEqual(native[name].pages[1].lines.map((l) => l.text));
  }
  const peak = await rendererPeakMB(app);
  console.log(`hostile PDFs in the browser: ${JSON.stringify(seen)}; renderer peak (VmHWM) ${peak} MB`);
  expect(Object.values(seen).every((c) => c === 'pdf_page_too_complex')).toBe(true);
  expect(peak).toBeLessThanOrEqual(1500);
});

test('structures the runtimes read differently: the same document record (or error) in both', async ({ app }) => {
  test.setTimeout(TIMEOUT);
  const dir = join(DATA, 'generated', 'disagreeing');
  const names = JSON.parse(await runNative([join('tests', 'py', 'hostile_pdfs.py'), dir, 'disagreeing']));
  const out = await runNative(['-m', 'retto', '--inputs', dir, '--format', 'jsonl', '--no-progress'])
    .catch((e) => { if (e.code !== 1) throw e; return e.stdout; });
  const native = Object.fromEntries(out.trim().split('\n').map((line) => JSON.parse(line))
    .map((r) => [r.path.split('/').at(-1), r]));
  await app.open();
  await app.create({ backend: 'wasm' });
  // What a reader can compare: the error (code and message) or the page count, warnings, each page's size and texts.
  const shape = (r) => (r.error ? { error: r.error } : { page_count: r.page_count, warnings: r.warnings ?? [],
    pages: r.pages.map((p) => (p.error ? { error: p.error } : { image: p.image, texts: p.lines.map((l) => l.text) })) });
  const seen = {};
  for (const name of names) {
    const got = await app.recognize(`generated/disagreeing/${name}`);
    seen[name] = shape(got.result ?? got);
    console.log(`${name}: browser ${JSON.stringify(seen[name])} native ${JSON.stringify(shape(native[name]))}`);
  }
  for (const name of names) expect(seen[name], name).toEqual(shape(native[name]));
});

test('a 100 MP 16-bit grey PNG (about 200 KB) reads in the browser with the renderer under 1.5 GB', async ({ app }) => {
  test.setTimeout(TIMEOUT);
  const rel = 'generated/gray16_100mp.png';
  await runNative(['-c', 'import sys; from PIL import Image; Image.new("I;16", (10000, 10000), 40000).save(sys.argv[1])',
    join(DATA, rel)]);
  await app.open();
  await app.create({ backend: 'wasm' });
  const got = await app.recognize(rel);
  expect(got.error).toBeUndefined();
  expect(got.result.image).toEqual({ width: 10000, height: 10000 });
  expect(got.result.lines).toEqual([]); // one flat grey: nothing to read
  const peak = await rendererPeakMB(app);
  console.log(`100 MP 16-bit grey PNG in the browser: renderer peak (VmHWM) ${peak} MB`);
  expect(peak).toBeLessThanOrEqual(1500);
});
