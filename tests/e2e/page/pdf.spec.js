// PDFs in the browser. On the page, a PDF, a password-protected one and a broken one give per-page results and
// two coded errors; the downloads are the CLI's formats (pdftotext reads our searchable PDF; the zip holds one
// file per input per format), and the PDF's pages (rendered by pdf.js in the OCR worker) read exactly as the
// native CLI reads the same PDF through pypdfium2. <retto-ocr> emits one result per page of a PDF URL.
// Fixtures are made at test time from the pinned images (tests/e2e/make_pdfs.py, fpdf2).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { diffResults } from '../compare.js';
import { DATA, expect, test } from '../product_fixtures.js';
import { PYTHON, ROOT, runNative } from '../fixtures.js';

const PDF_DIR = join(DATA, 'pdf'); // tests/data/ is fetched, not committed; served at /__testdata__/
const TIMEOUT = 4 * 60_000;
const run = promisify(execFile);

let made = null;
function fixtures() {
  made ??= runNative([join('tests', 'e2e', 'make_pdfs.py'), PDF_DIR]);
  return made;
}

const nativeDocs = new Map();
/** The native CLI's document record for a fixture (pypdfium2 at the same DPI), run where the file is. */
function nativeDoc(name) {
  if (!nativeDocs.has(name)) {
    nativeDocs.set(name, fixtures().then(() => runNative(['-m', 'retto', '--inputs', name, '--format', 'json', '--no-progress'],
      { cwd: PDF_DIR, env: { ...process.env, PYTHONPATH: join(ROOT, 'py') } })).then((out) => JSON.parse(out)[0]));
  }
  return nativeDocs.get(name);
}

const texts = (page) => page.lines.map((l) => l.text);
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Every OCR line must appear in pdftotext's output, in order (pdftotext may join or split lines). -raw: in the
 *  order the text layer holds it (the OCR reading order), not re-sorted by position, which on a map page (labels
 *  all over it) is a different order. */
async function expectLinesInOrder(pdfPath, lines) {
  const { stdout } = await run('pdftotext', ['-raw', pdfPath, '-']);
  const flat = stdout.replace(/\s+/g, ' ');
  let at = 0;
  for (const line of lines) {
    const want = line.replace(/\s+/g, ' ').trim();
    const found = flat.indexOf(want, at);
    expect(found, `"${want}" not found in order in pdftotext's output:\n${stdout}`).toBeGreaterThanOrEqual(0);
    at = found + want.length;
  }
}

test('pdf: on the page, a PDF + a locked one + a broken one; pages, errors, searchable PDF and zip', async ({ app, servers }) => {
  const { page } = app;
  const native = nativeDoc('doc.pdf');
  await fixtures();
  await page.addInitScript(() => { // what the queue rows say over time
    window.__details = [];
    new MutationObserver(() => {
      for (const d of document.querySelectorAll('#queue .job-detail')) {
        if (window.__details.at(-1) !== d.textContent) window.__details.push(d.textContent);
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await page.goto(servers.isolated);
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });

  // Dropped together, as a person would: a synthetic drop with a real DataTransfer of three files.
  const files = ['doc.pdf', 'locked.pdf', 'broken.pdf'].map((name) => ({ name, b64: readFileSync(join(PDF_DIR, name)).toString('base64') }));
  await page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of list) {
      dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name, { type: 'application/pdf' }));
    }
    for (const type of ['dragenter', 'dragover', 'drop']) {
      window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, files);
  await expect(page.locator('#notice')).toContainText('Added 3 files');
  const row = (name) => page.locator('#queue .job', { hasText: name });
  for (const name of ['doc.pdf', 'locked.pdf', 'broken.pdf']) {
    await expect(row(name)).toHaveAttribute('data-status', /done|failed/, { timeout: TIMEOUT });
  }
  const want = await native;
  const nLines = want.pages.reduce((a, p) => a + p.lines.length, 0);
  await expect(row('doc.pdf').locator('.job-detail')).toHaveText(`2 pages · ${nLines} lines`);
  const seen = await page.evaluate(() => window.__details);
  expect(seen.some((t) => /^page 1 \/ 2/.test(t)) && seen.some((t) => /^page 2 \/ 2/.test(t)), seen.join('\n')).toBe(true);

  // The two errors, with their codes.
  for (const [name, code] of [['locked.pdf', 'pdf_encrypted'], ['broken.pdf', 'pdf_invalid']]) {
    await expect(row(name)).toHaveAttribute('data-status', 'failed');
    await row(name).locator('.job-button').click();
    await expect(page.locator('#result-status .error-detail')).toContainText(`Details: ${code}`);
  }

  // The PDF's pages: a switcher, each page's lines as the native CLI read them.
  await row('doc.pdf').locator('.job-button').click();
  await expect(page.locator('#page-nav')).toBeVisible();
  await expect(page.locator('#page-select option')).toHaveCount(2);
  for (const [i, p] of want.pages.entries()) {
    await page.locator('#page-select').selectOption(String(i));
    await expect(page.locator('#lines .line .text')).toHaveText(texts(p));
    await expect(page.locator('#figure polygon')).toHaveCount(p.lines.length);
    await expect(page.locator('#figure img')).toHaveAttribute('src', /^blob:/);
  }

  const download = async (id) => {
    const [d] = await Promise.all([page.waitForEvent('download', { timeout: TIMEOUT }), page.locator(id).click()]);
    return { name: d.suggestedFilename(), path: await d.path() };
  };
  // The searchable PDF: pdftotext (poppler, independent of us) finds every line of every page, in order.
  const pdf = await download('#download-pdf');
  expect(pdf.name).toBe('doc.pdf');
  const { stdout: info } = await run('pdfinfo', [pdf.path]);
  expect(info).toMatch(/Pages:\s+2\n/);
  await expectLinesInOrder(pdf.path, want.pages.flatMap(texts));

  // All as PDF: one searchable PDF of every readable page of the queue (the two failed files have none).
  const all = await download('#download-all-pdf');
  const { stdout: allInfo } = await run('pdfinfo', [all.path]);
  expect(allInfo).toMatch(/Pages:\s+2\n/);
  await expectLinesInOrder(all.path, want.pages.flatMap(texts));

  // All as zip, with every format: one file per readable input per format; the failed two are named as left out.
  for (const box of await page.locator('input[name="zip-format"]').all()) await box.check();
  const zip = await download('#download-all-zip');
  expect(zip.name).toBe('retto-ocr.zip');
  await expect(page.locator('#notice')).toContainText('left out 2 files');
  await expect(page.locator('#notice')).toContainText('locked.pdf (pdf_encrypted)');
  await expect(page.locator('#notice')).toContainText('broken.pdf (pdf_invalid)');
  const listing = JSON.parse(await runNative(['-c', [
    'import json, sys, zipfile', 'z = zipfile.ZipFile(sys.argv[1])',
    'print(json.dumps({"names": sorted(z.namelist()), "doc": json.loads(z.read("doc.json")),',
    '                  "txt": z.read("doc.txt").decode(), "pdf_head": z.read("doc.pdf")[:5].decode()}))',
  ].join('\n'), zip.path]));
  expect(listing.names).toEqual(['doc.hocr', 'doc.json', 'doc.pdf', 'doc.txt']);
  expect(listing.pdf_head).toBe('%PDF-');

  // Parity: the browser's document record (pdf.js pages) against the native CLI's (pypdfium2 at the same DPI,
  // the same pixel size from retto.io.document.render_scale): texts identical, boxes within 1 px, line by line.
  const doc = listing.doc;
  expect([doc.path, doc.kind, doc.page_count]).toEqual(['doc.pdf', 'pdf', want.page_count]);
  expect(doc.pages.map((p) => [p.page, p.dpi])).toEqual(want.pages.map((p) => [p.page, p.dpi]));
  const diffs = want.pages.flatMap((w, i) => diffResults(`doc.pdf page ${w.page}`, doc.pages[i], w));
  expect(diffs, diffs.join('\n')).toEqual([]);
  expect(want.pages.every((p) => p.lines.length > 3)).toBe(true); // a real comparison, not two empty pages
  // For the closing note: per-page OCR time (the pipeline's total; rendering not included), browser vs native.
  const b = doc.pages.map((p) => p.timings.total);
  const n = want.pages.map((p) => p.timings.total);
  console.log(`[pdf timing] per page, median: browser ${median(b).toFixed(0)} ms vs native ${median(n).toFixed(0)} ms `
    + `(browser ${b.map((x) => x.toFixed(0)).join(', ')}; native ${n.map((x) => x.toFixed(0)).join(', ')})`);
  // The TXT is the CLI's text format, byte for byte.
  const { stdout: nativeTxt } = await run(PYTHON, ['-m', 'retto', '--inputs', 'doc.pdf', '--format', 'text',
    '--no-progress'], { cwd: PDF_DIR, env: { ...process.env, PYTHONPATH: join(ROOT, 'py') } });
  expect(listing.txt).toBe(nativeTxt);
});

test('pdf: <retto-ocr> with a PDF URL emits one result event per page', async ({ app, servers }) => {
  const { page } = app;
  const native = nativeDoc('doc.pdf');
  await fixtures();
  await page.addInitScript(() => {
    window.__results = [];
    window.__errors = [];
    document.addEventListener('retto-result', (e) => window.__results.push({ id: e.target.id, page: e.detail.page,
      lines: e.detail.lines.map((l) => l.text) }));
    document.addEventListener('retto-error', (e) => window.__errors.push({ id: e.target.id, ...e.detail }));
  });
  await page.goto(`${servers.isolated}embed-example/`);
  await page.locator('#first').evaluate((el) => el.setAttribute('src', '/__testdata__/pdf/doc.pdf'));
  await expect.poll(() => page.evaluate(() => [window.__results.filter((r) => r.id === 'first').length, window.__errors]),
    { timeout: TIMEOUT }).toEqual([2, []]);
  const got = await page.evaluate(() => window.__results.filter((r) => r.id === 'first'));
  const want = await native;
  expect(got.map((r) => r.page)).toEqual([1, 2]);
  expect(got.map((r) => r.lines)).toEqual(want.pages.map(texts));
  // The element shows the pages: a page switcher, the first page's lines.
  await expect(page.locator('#first').locator('select.pages option')).toHaveCount(2);
  await expect(page.locator('#first').locator('.line')).toHaveCount(want.pages[0].lines.length);
});
