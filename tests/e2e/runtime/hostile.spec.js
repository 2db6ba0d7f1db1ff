// Hostile inputs in the browser (issue 23): each PDF probe's bad page is refused by retto.io.pdf_guard (run in
// Pyodide, before pdf.js draws it) with the error the native CLI gives for the same file (pdf_page_too_complex, or
// pdf_page_unmeasured when it cannot be measured), the good page is read as natively, and the renderer's resident
// memory stays bounded; the image probes read their written text. Probes: tests/py/hostile_pdfs.py and
// tests/py/image_probes.py (the native tests' makers), written at test time. Memory is the Chromium renderer
// processes' VmHWM (peak resident set) from /proc.
import { join } from 'node:path';
import { DATA, expect, runNative, test } from '../fixtures.js';

const DIR = join(DATA, 'generated', 'hostile'); // served at /__testdata__/generated/hostile/
const TIMEOUT = 6 * 60_000;

/** Resident memory (VmRSS, VmHWM) of every Chromium renderer process of this browser, in MB (Linux). */
async function rendererPeakMB(app) {
  const { readFileSync } = await import('node:fs');
  return Math.max(...(await app.rendererPids()).map((id) => {
    const status = readFileSync(`/proc/${id}/status`, 'utf8');
    return Math.round(Number(status.match(/VmHWM:\s+(\d+) kB/)[1]) / 1024);
  }));
}

test('hostile PDFs: the bad page is refused as natively, the good page reads, renderer under 1.5 GB', async ({ app }) => {
  test.setTimeout(TIMEOUT);
  const names = JSON.parse(await runNative([join('tests', 'py', 'hostile_pdfs.py'), DIR]));
  // Natively while the browser boots. Exit code 1 (every document has a failed page) is the expected outcome:
  // take its output all the same.
  const out = runNative(['-m', 'retto', '--inputs', DIR, '--format', 'jsonl', '--no-progress'])
    .catch((e) => { if (e.code !== 1) throw e; return e.stdout; });
  await app.open();
  await app.create({ backend: 'wasm' });
  const native = Object.fromEntries((await out).trim().split('\n').map((line) => JSON.parse(line))
    .map((r) => [r.path.split('/').at(-1), r]));
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
  expect(Object.values(seen).every((c) => ['pdf_page_too_complex', 'pdf_page_unmeasured'].includes(c))).toBe(true);
  expect(peak).toBeLessThanOrEqual(1500);
});

test('structures the runtimes read differently: the same document record (or error) in both', async ({ engine }) => {
  test.setTimeout(TIMEOUT);
  const dir = join(DATA, 'generated', 'disagreeing');
  const names = JSON.parse(await runNative([join('tests', 'py', 'hostile_pdfs.py'), dir, 'disagreeing']));
  const out = runNative(['-m', 'retto', '--inputs', dir, '--format', 'jsonl', '--no-progress'])
    .catch((e) => { if (e.code !== 1) throw e; return e.stdout; });
  const native = Object.fromEntries((await out).trim().split('\n').map((line) => JSON.parse(line))
    .map((r) => [r.path.split('/').at(-1), r]));
  // What a reader can compare: the error (code and message) or the page count, warnings, each page's size and texts.
  const shape = (r) => (r.error ? { error: r.error } : { page_count: r.page_count, warnings: r.warnings ?? [],
    pages: r.pages.map((p) => (p.error ? { error: p.error } : { image: p.image, texts: p.lines.map((l) => l.text) })) });
  const seen = {};
  for (const name of names) {
    const got = await engine.recognize(`generated/disagreeing/${name}`);
    seen[name] = shape(got.result ?? got);
    console.log(`${name}: browser ${JSON.stringify(seen[name])} native ${JSON.stringify(shape(native[name]))}`);
  }
  for (const name of names) expect(seen[name], name).toEqual(shape(native[name]));
});

const PROBES = join('tests', 'py', 'image_probes.py');

test('a 100 MP 16-bit grey PNG (about 200 KB) reads its text in the browser with the renderer under 1.5 GB', async ({ app }) => {
  test.setTimeout(TIMEOUT);
  const rel = 'generated/gray16_100mp.png';
  const made = runNative([PROBES, 'gray16', join(DATA, rel)]); // written while the browser boots
  await app.open();
  await app.create({ backend: 'wasm' });
  const { lines } = JSON.parse(await made);
  const got = await app.recognize(rel);
  expect(got.error).toBeUndefined();
  expect(got.result.image).toEqual({ width: 10000, height: 10000 });
  expect(got.result.lines.map((l) => l.text)).toEqual(lines);
  const peak = await rendererPeakMB(app);
  console.log(`100 MP 16-bit grey PNG in the browser: renderer peak (VmHWM) ${peak} MB`);
  expect(peak).toBeLessThanOrEqual(1500);
});

// 700 characters: a rec input of about 11,500 px, read in 3 windows (retto.ops.rec_windows.run_async). A 2,500-
// character line (about 12 windows) is read natively (tests/py/native/test_probe_memory.py); in wasm it would take minutes.
test('a line over the rec window limit reads in windows in the browser as natively, renderer under 1.5 GB', async ({ app }) => {
  test.setTimeout(TIMEOUT);
  const rel = 'generated/line_700.png';
  // Written, then read natively, while the browser boots; awaited before the browser reads, so the two runtimes'
  // thread pools do not share the two cores on the same long line (measured slower, loaded).
  const nativeOut = runNative([PROBES, 'line', join(DATA, rel), '700']).then(() => runNative(['-m', 'retto',
    '--inputs', join(DATA, rel), '--format', 'jsonl', '--no-progress']));
  await app.open();
  await app.create({ backend: 'wasm' });
  const native = JSON.parse(await nativeOut);
  const got = await app.recognize(rel);
  expect(got.error).toBeUndefined();
  const peak = await rendererPeakMB(app);
  console.log(`700-character line (${got.result.image.width}x${got.result.image.height}) in the browser: `
    + `renderer peak (VmHWM) ${peak} MB`);
  expect(got.result.lines.map((l) => l.text)).toEqual(native.lines.map((l) => l.text));
  expect(peak).toBeLessThanOrEqual(1500);
});

// Control characters, markup, a bidi override and a CDATA end in a file name (no NUL and no slash: no Linux file
// name holds them).
const HOSTILE_NAME = 'scan\x01\x07\x1b[31m\t<script>alert(1)<\\script><img src=x onerror=alert(2)>&amp;\u202e]]>\x7f.png';

test('a hostile file name: hOCR and ALTO from the browser export are well-formed, byte for byte the native files', async ({ engine }) => {
  test.setTimeout(TIMEOUT);
  const { mkdirSync, copyFileSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
  const dir = join(DATA, 'generated', 'hostile_name');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, HOSTILE_NAME);
  copyFileSync(join(DATA, '..', 'testset', 'pages', 'dark_ui.png'), file);
  // Natively: the CLI's record, and its hOCR and ALTO as the CLI writes them (retto.export.render under the path).
  // (both while the browser reads the file)
  const recordFile = join(DATA, 'generated', 'hostile_name.json');
  const nativeOut = (async () => {
    const record = JSON.parse(await runNative(['-m', 'retto', '--inputs', dir, '--format', 'jsonl', '--no-progress']));
    writeFileSync(recordFile, JSON.stringify(record));
    return { record, native: JSON.parse(await runNative(['-c', 'import json, sys; from retto import export; '
      + 'r = json.loads(open(sys.argv[1], encoding="utf-8").read()); '
      + 'print(json.dumps({f: export.render(r, f, r["path"]) + "\\n" for f in ("hocr", "alto")}))', recordFile])) };
  })();
  const got = await engine.recognize(readFileSync(file));
  const { record, native } = await nativeOut;
  expect(got.error).toBeUndefined();
  const out = await engine.page.evaluate(async ({ nativeRecord, own, name }) => {
    const parse = (text, type) => {
      const doc = new DOMParser().parseFromString(text, type);
      return { wellFormed: doc.getElementsByTagName('parsererror').length === 0,
        scripts: doc.getElementsByTagName('script').length, doc };
    };
    const res = {};
    for (const [format, type] of [['hocr', 'application/xhtml+xml'], ['alto', 'application/xml']]) {
      const fromNative = await (await window.ocr.export(nativeRecord, format)).text();
      const fromOwn = await (await window.ocr.export(own, format, { name })).text();
      const a = parse(fromNative, type);
      const b = parse(fromOwn, type);
      const title = (p) => (format === 'hocr' ? p.doc.querySelector('title')?.textContent
        : p.doc.getElementsByTagName('fileName')[0]?.textContent);
      res[format] = { fromNative, ownWellFormed: b.wellFormed, nativeWellFormed: a.wellFormed,
        scripts: a.scripts + b.scripts, ownTitle: title(b), nativeTitle: title(a) };
    }
    return res;
  }, { nativeRecord: record, own: got.result, name: record.path });
  for (const format of ['hocr', 'alto']) {
    const r = out[format];
    console.log(`${format}: name as read back ${JSON.stringify(r.ownTitle)}`);
    expect(r.fromNative, format).toEqual(native[format]); // the browser's export path writes the CLI's bytes
    expect([r.nativeWellFormed, r.ownWellFormed, r.scripts], format).toEqual([true, true, 0]);
    expect(r.ownTitle, format).toEqual(r.nativeTitle);
    expect(r.ownTitle, format).toContain('<script>'); // the name as text, its control characters escaped
    expect(r.ownTitle, format).toContain('\\x1b');
  }
});
