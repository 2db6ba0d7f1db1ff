// The offline app: the first visit precaches everything (with byte progress, verified by sha256); with the
// network off and the server gone, a reload still boots the engine (still cross-origin isolated) and OCRs an
// image. Then a new build is deployed: it installs beside the old one, takes over on "Reload to update", and
// the old cache is deleted.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from './fixtures.js';
import { APP_DIST, DATA, expect, nativeResult, startServer, test } from './product_fixtures.js';
import { writeServiceWorker } from '../../web/src/sw/vite_plugin_pwa.js';

const PAGE = process.env.RETTO_PAGE ?? '';
const TIMEOUT = 4 * 60_000;

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

test('PWA: precache on first visit, OCR offline with the server stopped, clean update', async () => {
  const native = nativeResult(join(DATA, 'baiona.png'));
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
    const cached = await page.evaluate(async (name) => (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname), v1[0]);
    const manifest = await page.evaluate(() => fetch('assets/manifest.json').then((r) => r.json()));
    for (const f of Object.keys(manifest.files)) expect(cached).toContain(`/assets/${f}`);
    expect(cached).toContain(`/${PAGE || 'index.html'}`);
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
    await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
    expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(true); // cached responses keep COOP/COEP
    await expect(page.locator('#backend-info')).toContainText(`${await page.evaluate(() => navigator.hardwareConcurrency)} thread`);
    await page.locator('#pick-files').setInputFiles(join(DATA, 'baiona.png'));
    const row = page.locator('#queue .job', { hasText: 'baiona.png' });
    await expect(row).toHaveAttribute('data-status', /done|failed/, { timeout: TIMEOUT });
    expect(await row.getAttribute('data-status'), await page.locator('#result-status').textContent()).toBe('done');
    expect(await page.locator('#lines .line .text').allTextContents()).toEqual((await native).lines.map((l) => l.text));

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
    const after = await page.evaluate(() => fetch('embed-example/index.html').then((r) => r.text()));
    expect(after).toContain('build two');
    expect(offOrigin).toEqual([]);
  } finally {
    await browser.close();
    await server.close();
    rmSync(next.dir, { recursive: true, force: true });
  }
});
