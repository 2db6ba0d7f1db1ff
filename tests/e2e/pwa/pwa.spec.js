// The offline app: the first visit precaches the app and the DEFAULT model set (with byte progress, verified by
// sha256), not the other sets; a set used once online is saved when it is fetched (a Tesseract set with its engine). With the network off and the
// server gone, a reload still boots the engine on that set (still cross-origin isolated) and OCRs an image, and
// the default set works too, and so does a PDF (pdf.js saved after one PDF). Then a new build is deployed: it installs beside the old one (keeping the used
// set), takes over on "Reload to update", and the old cache is deleted.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium, ROOT, runNative } from '../fixtures.js';
import { APP_DIST, DATA, expect, nativeResult, startServer, test } from '../product_fixtures.js';
import { writeServiceWorker } from '../../../web/src/sw/vite_plugin_pwa.js';

const PAGE = process.env.RETTO_PAGE ?? '';
const TIMEOUT = 4 * 60_000;
const MANIFEST = JSON.parse(readFileSync(join(APP_DIST, 'assets', 'manifest.json'), 'utf8'));
const DEFAULT = MANIFEST.default_model_set;
const OTHER = DEFAULT === 'ppocr-v6-tiny' ? 'ppocr-v4' : 'ppocr-v6-tiny'; // small, fast: the set used once
// A Tesseract set used once too: its traineddata and the wasm engine must be saved with it (scripts/data/
// make_script_testset.py writes its page).
const TESSERACT_SET = 'greek';
const TESSERACT_PAGE = join(ROOT, 'tests', 'testset', 'script_pages', `${TESSERACT_SET}_clean.png`);
/** assets/ paths of a set: its files (and a Tesseract set's engine), and its WebGL folder (the default's is precached as before). Not its layout
 *  and table models: they are fetched (and saved offline) only once a page needs them. */
function setFiles(name, { webgl = true } = {}) {
  const e = MANIFEST.model_sets[name];
  const dir = webgl && e.webgl ? e.webgl.replace(/[^/]*$/, '') : null;
  const files = Object.entries(e.files).filter(([role]) => role !== 'layout' && role !== 'table').map(([, f]) => f.file);
  // a Tesseract set's lines are read by the wasm engine, which is saved with the set (never precached otherwise)
  if (e.set.line_rec) files.push(MANIFEST.tesseract.module, MANIFEST.tesseract.wasm);
  return [...new Set([...files,
    ...Object.keys(MANIFEST.files).filter((f) => dir && f.startsWith(dir))])].map((f) => `/assets/${f}`);
}
const cachedPaths = (page, name) => page.evaluate(async (n) => (await (await caches.open(n)).keys())
  .map((r) => new URL(r.url).pathname), name);

function recorder() {
  window.__offlineTexts = [];
  new MutationObserver(() => {
    const t = document.getElementById('offline-status')?.textContent;
    if (t && window.__offlineTexts.at(-1) !== t) window.__offlineTexts.push(t);
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

/** A "new deploy": dist/ with one changed page (symlinks for the rest) and its rebuilt sw.js. */
function nextBuild(dist, marker) {
  const dir = mkdtempSync(join(tmpdir(), 'retto-next-'));
  for (const name of readdirSync(dist)) {
    if (name !== 'embed-example' && name !== 'sw.js') symlinkSync(join(dist, name), join(dir, name));
  }
  cpSync(join(dist, 'embed-example'), join(dir, 'embed-example'), { recursive: true });
  const page = join(dir, 'embed-example', 'index.html');
  writeFileSync(page, readFileSync(page, 'utf8').replace('</body>', `<!-- ${marker} -->\n</body>`));
  return { dir, version: writeServiceWorker(dir).version };
}

test('PWA: precache on first visit, a set used once works offline, OCR with the server stopped, clean update', async () => {
  const native = nativeResult(join(DATA, 'baiona.png'));
  const nativeOther = runNative(['-m', 'retto', '--models', OTHER, '--images', join(DATA, 'baiona.png'),
    '--format', 'json', '--no-progress']).then((out) => JSON.parse(out)[0]);
  const nativeTesseract = runNative(['-m', 'retto', '--models', TESSERACT_SET, '--images', TESSERACT_PAGE,
    '--format', 'json', '--no-progress']).then((out) => JSON.parse(out)[0]);
  const makePdfs = runNative([join('tests', 'e2e', 'make_pdfs.py'), join(DATA, 'pdf')]); // pdf.spec.js's fixtures
  let server = await startServer({ dir: APP_DIST, isolation: true });
  const { port, origin } = new URL(server.url);
  const browser = await launchChromium();
  const next = nextBuild(APP_DIST, 'build two');
  try {
    const context = await browser.newContext();
    const offOrigin = [];
    context.on('request', (r) => { if (/^https?:/.test(r.url()) && new URL(r.url()).origin !== origin) offOrigin.push(r.url()); });
    const page = await context.newPage();
    await page.addInitScript(recorder);

    // First visit: engine loads, then the service worker saves everything, reporting bytes.
    await page.goto(`${server.url}${PAGE}`);
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
    await expect(page.locator('#offline-status')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
    const seen = await page.evaluate(() => window.__offlineTexts);
    expect(seen.some((t) => /Saving for offline use: [\d.]+ [KM]?B of [\d.]+ MB/.test(t)), seen.join('\n')).toBe(true);
    const v1 = await page.evaluate(() => caches.keys());
    expect(v1).toHaveLength(1);
    const cached = await cachedPaths(page, v1[0]);
    const modelFiles = new Set(Object.keys(MANIFEST.model_sets).flatMap((n) => setFiles(n)));
    const onUse = (f) => /^\/assets\/(pdfjs|pdf|export|xlsx)\//.test(f); // pdf.js + pypdf, the export wheels: saved on first use
    // The layout and table models: only once a page needs them (saved offline when fetched).
    const settingModels = new Set(Object.values(MANIFEST.model_sets).flatMap((e) => ['layout', 'table']
      .filter((r) => e.files[r]).map((r) => `/assets/${e.files[r].file}`)));
    expect(settingModels.size).toBeGreaterThan(0);
    for (const f of Object.keys(MANIFEST.files).map((p) => `/assets/${p}`)) {
      if (onUse(f) || settingModels.has(f)) expect(cached).not.toContain(f);
      else if (!modelFiles.has(f)) expect(cached).toContain(f); // Pyodide, onnxruntime-web, the wheel
    }
    for (const f of setFiles(DEFAULT)) expect(cached).toContain(f); // the default set, WebGL variants included
    const defaultFiles = new Set(setFiles(DEFAULT));
    for (const name of Object.keys(MANIFEST.model_sets).filter((n) => n !== DEFAULT)) {
      for (const f of setFiles(name).filter((p) => !defaultFiles.has(p))) expect(cached, `${name} not precached`).not.toContain(f);
    }
    expect(cached).toContain(`/${PAGE || 'index.html'}`);

    // Cache on fetch: a file of a set nobody asked to save is kept once fetched (the page's bytes as they came).
    const third = Object.keys(MANIFEST.model_sets).find((n) => n !== DEFAULT && n !== OTHER);
    // (a file of its own: files several sets ship are stored once, and the default set's are precached)
    const own = Object.values(MANIFEST.model_sets[third].files).find((f) => !defaultFiles.has(`/assets/${f.file}`)
      && !settingModels.has(`/assets/${f.file}`));
    const probe = `/assets/${own.file}`;
    expect(await page.evaluate((u) => fetch(u).then((r) => r.arrayBuffer()).then((b) => b.byteLength), probe))
      .toBe(own.size);
    await expect.poll(async () => (await cachedPaths(page, v1[0])).includes(probe), { timeout: 30_000 }).toBe(true);

    // Another set, used once online: the service worker saves its files as the OCR worker fetches them.
    await page.locator('#model-set').selectOption(OTHER);
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
    await expect(page.locator('#backend-info')).toContainText('runs on this device (CPU');
    await expect.poll(async () => {
      const now = await cachedPaths(page, v1[0]);
      return setFiles(OTHER, { webgl: false }).filter((f) => !now.includes(f));
    }, { timeout: 60_000 }).toEqual([]);
    // A Tesseract set used once online: its traineddata and the engine are saved too. Then back to OTHER.
    expect(MANIFEST.model_sets[TESSERACT_SET].set.line_rec).toBeTruthy();
    await page.locator('#model-set').selectOption(TESSERACT_SET);
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'loading');
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
    await expect.poll(async () => {
      const now = await cachedPaths(page, v1[0]);
      return setFiles(TESSERACT_SET, { webgl: false }).filter((f) => !now.includes(f));
    }, { timeout: 60_000 }).toEqual([]);
    await page.locator('#model-set').selectOption(OTHER);
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'loading');
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
    // A PDF read once online: pdf.js is saved (all of it: the page asks for the group), so PDFs work offline.
    await makePdfs;
    await page.locator('#pick-files').setInputFiles(join(DATA, 'pdf', 'doc.pdf'));
    await expect(page.locator('#queue .job', { hasText: 'doc.pdf' })).toHaveAttribute('data-status', 'done', { timeout: TIMEOUT });
    const pdfjsFiles = Object.keys(MANIFEST.files).filter((f) => /^pdf(js)?\//.test(f)).map((f) => `/assets/${f}`); // + pypdf
    await expect.poll(async () => {
      const now = await cachedPaths(page, v1[0]);
      return pdfjsFiles.filter((f) => !now.includes(f)).length;
    }, { timeout: 60_000 }).toBe(0);

    // Installable: Chromium's own check of the manifest, icons and service worker finds nothing missing.
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    // (Playwright's contexts are incognito, which Chromium reports on its own; nothing else may be missing.)
    expect(installabilityErrors.filter((e) => e.errorId !== 'in-incognito')).toEqual([]);
    const { url: manifestUrl, errors: manifestErrors } = await cdp.send('Page.getAppManifest');
    expect(manifestUrl).toMatch(/manifest\.webmanifest$/);
    expect(manifestErrors).toEqual([]);

    // Offline: no network, no server. Reload and OCR an image.
    await server.close();
    await context.setOffline(true);
    await page.reload();
    await expect(page.locator('#model-set')).toHaveValue(OTHER); // remembered, and its files were saved
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
    expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(true); // cached responses keep COOP/COEP
    await expect(page.locator('#backend-info')).toContainText(`${await page.evaluate(() => navigator.hardwareConcurrency)} thread`);
    const readOffline = async (expected, file = join(DATA, 'baiona.png')) => {
      if (await page.locator('#clear-queue').isEnabled()) await page.locator('#clear-queue').click();
      await page.locator('#pick-files').setInputFiles(file);
      const row = page.locator('#queue .job', { hasText: file.split('/').at(-1) });
      await expect(row).toHaveAttribute('data-status', /done|failed/, { timeout: TIMEOUT });
      expect(await row.getAttribute('data-status'), await page.locator('#result-status').textContent()).toBe('done');
      expect(await page.locator('#lines .line .text').allTextContents()).toEqual((await expected).lines.map((l) => l.text));
    };
    await readOffline(nativeOther);
    await page.locator('#clear-queue').click();
    await page.locator('#pick-files').setInputFiles(join(DATA, 'pdf', 'doc.pdf')); // a PDF, offline
    const pdfRow = page.locator('#queue .job', { hasText: 'doc.pdf' });
    await expect(pdfRow).toHaveAttribute('data-status', /done|failed/, { timeout: TIMEOUT });
    await expect(pdfRow.locator('.job-detail')).toHaveText(/^2 pages · \d+ lines$/);
    // The Tesseract set used once, offline: the same lines as natively.
    await page.locator('#model-set').selectOption(TESSERACT_SET);
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'loading');
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
    await readOffline(nativeTesseract, TESSERACT_PAGE);
    // The default set, offline too (precached).
    await page.locator('#model-set').selectOption(DEFAULT);
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'loading');
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
    await readOffline(native);

    // A new build is deployed on the same origin: it installs beside the running one, never mixed in.
    await context.setOffline(false);
    server = await startServer({ dir: next.dir, isolation: true, port: Number(port) });
    await page.reload();
    await expect(page.locator('#offline-status')).toContainText('A new version is ready', { timeout: TIMEOUT });
    expect((await page.evaluate(() => caches.keys())).sort()).toEqual([v1[0], `retto-${next.version}`].sort());
    const before = await page.evaluate(() => fetch('embed-example/index.html').then((r) => r.text()));
    expect(before).not.toContain('build two'); // the page still runs entirely on the old version
    await Promise.all([page.waitForEvent('load', { timeout: 60_000 }), // the page reloads into the new version
      page.locator('#offline-status button').click()]); // "Reload to update"
    await expect.poll(() => page.evaluate(() => caches.keys()), { timeout: 60_000 }).toEqual([`retto-${next.version}`]);
    const carried = await cachedPaths(page, `retto-${next.version}`); // the set used once survived the update
    for (const f of setFiles(OTHER, { webgl: false })) expect(carried).toContain(f);
    const after = await page.evaluate(() => fetch('embed-example/index.html').then((r) => r.text()));
    expect(after).toContain('build two');
    expect(offOrigin).toEqual([]);
  } finally {
    await browser.close();
    await server.close();
    rmSync(next.dir, { recursive: true, force: true });
  }
});
