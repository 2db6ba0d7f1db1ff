// The installed app's ways in and its offline copy: the manifest's screenshots / share_target / file_handlers
// are valid (Chromium's own manifest parser; the screenshots' sizes are the PNGs' real dimensions); the first
// offline save says its size (the bytes of the saved files, from dist/ on disk) and offers "Keep offline", whose
// answer is the browser's (navigator.storage.persisted()), offered once; a multipart POST to the share action,
// from a page the service worker controls, ends with the shared image queued and read; files opened with the app
// (FileSystemFileHandles from OPFS, given to the consumer the page registers on window.launchQueue) too.
// Texts are compared with the native CLI.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { APP_DIST, DATA, expect, nativeResult, test } from '../product_fixtures.js';

const TIMEOUT = 4 * 60_000;
const WEBMANIFEST = JSON.parse(readFileSync(join(APP_DIST, 'manifest.webmanifest'), 'utf8'));

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(path) {
  const b = readFileSync(path);
  expect(b.subarray(1, 4).toString('latin1')).toBe('PNG');
  return `${b.readUInt32BE(16)}x${b.readUInt32BE(20)}`;
}

// Chromium feeds window.launchQueue only in an installed app's window opened through file_handlers; in this
// tab nothing ever arrives. So the consumer the page registers is kept (LaunchQueue.prototype.setConsumer is
// wrapped, the real one still called) and the test calls it with real handles, as Chromium would.
function keepLaunchConsumer() {
  if (!('LaunchQueue' in window)) {
    window.launchQueue = { setConsumer(fn) { window.__launchConsumer = fn; } };
    return;
  }
  const real = LaunchQueue.prototype.setConsumer;
  LaunchQueue.prototype.setConsumer = function setConsumer(fn) {
    window.__launchConsumer = fn;
    return real.call(this, fn);
  };
}

test('install: manifest, first offline save with its size and Keep offline, share target, open with', async ({ app, servers }) => {
  const { page, context } = app;
  const native = nativeResult(join(DATA, 'baiona.png'));

  // The manifest's new fields.
  expect(WEBMANIFEST.description.length).toBeGreaterThan(40);
  const forms = WEBMANIFEST.screenshots.map((s) => s.form_factor).sort();
  expect(forms).toEqual(['narrow', 'wide']);
  for (const s of WEBMANIFEST.screenshots) {
    expect(s.type).toBe('image/png');
    expect(s.sizes).toBe(pngSize(join(APP_DIST, s.src)));
    expect(s.label).toBeTruthy();
  }
  const [w, h] = WEBMANIFEST.screenshots.find((s) => s.form_factor === 'wide').sizes.split('x').map(Number);
  expect(w).toBeGreaterThan(h);
  expect(WEBMANIFEST.share_target).toMatchObject({ method: 'POST', enctype: 'multipart/form-data' });
  expect(WEBMANIFEST.share_target.params.files[0].accept).toEqual(expect.arrayContaining(['image/png', 'application/pdf']));
  expect(Object.keys(WEBMANIFEST.file_handlers[0].accept)).toEqual(expect.arrayContaining(['image/png', 'application/pdf']));

  await page.addInitScript(keepLaunchConsumer);
  await page.goto(servers.isolated);
  const cdp = await context.newCDPSession(page);
  const { errors } = await cdp.send('Page.getAppManifest');
  expect(errors).toEqual([]); // Chromium parsed every member without a complaint

  // First visit: the offline copy is announced once, with its size, and "Keep offline" is offered.
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
  await expect(page.locator('#offline-status')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
  const cacheName = (await page.evaluate(() => caches.keys())).find((n) => n.startsWith('retto-'));
  const saved = await page.evaluate(async (n) => (await (await caches.open(n)).keys()).map((r) => new URL(r.url).pathname), cacheName);
  const bytes = saved.reduce((sum, p) => sum + statSync(join(APP_DIST, p)).size, 0);
  await expect(page.locator('#offline-status')).toContainText(`Saved for offline use: ${(bytes / 1024 / 1024).toFixed(1)} MB.`);
  await page.locator('#keep-offline').click();
  await expect(page.locator('#keep-offline')).toHaveCount(0);
  const persisted = await page.evaluate(() => navigator.storage.persisted());
  await expect(page.locator('#offline-status')).toContainText(persisted ? 'Kept: the browser will not clear'
    : 'The browser decides');

  // Share: a multipart POST to the share action, answered by the service worker (303 to the page).
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  const image = readFileSync(join(DATA, 'baiona.png')).toString('base64');
  const landing = await page.evaluate(async ({ b64, action }) => {
    const form = new FormData();
    form.append('files', new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'shared.png', { type: 'image/png' }));
    const res = await fetch(action, { method: 'POST', body: form });
    return { url: res.url, redirected: res.redirected, status: res.status };
  }, { b64: image, action: WEBMANIFEST.share_target.action });
  expect(landing).toMatchObject({ redirected: true, status: 200 });
  expect(new URL(landing.url).search).toBe('?shared=1');
  await page.goto(landing.url); // what the browser does with the share's answer
  // Nothing is read before the person says so: the notice names the file and offers to read it.
  await expect(page.locator('#notice')).toContainText('shared.png was shared with Retto.', { timeout: TIMEOUT });
  await expect(page.locator('#queue .job')).toHaveCount(0);
  await page.locator('#read-shared').click();
  const shared = page.locator('#queue .job', { hasText: 'shared.png' });
  await expect(shared).toHaveAttribute('data-status', 'done', { timeout: TIMEOUT });
  await shared.locator('.job-button').click();
  expect(await page.locator('#lines .line .text').allTextContents()).toEqual((await native).lines.map((l) => l.text));
  expect(new URL(page.url()).search).toBe(''); // a reload would not take the files again
  expect(await page.evaluate(async () => (await (await caches.open('shared-files')).keys()).length)).toBe(0);
  // The second visit: offered once only.
  await expect(page.locator('#offline-status')).toHaveAttribute('data-state', 'ready', { timeout: TIMEOUT });
  await expect(page.locator('#offline-status')).toContainText('Works offline');
  await expect(page.locator('#keep-offline')).toHaveCount(0);

  // Open with: real FileSystemFileHandles (made in OPFS) given to the page's launchQueue consumer.
  await page.evaluate(async (b64) => {
    const dir = await navigator.storage.getDirectory();
    const handle = await dir.getFileHandle('opened.png', { create: true });
    const w = await handle.createWritable();
    await w.write(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
    await w.close();
    await window.__launchConsumer({ files: [handle] });
  }, image);
  const opened = page.locator('#queue .job', { hasText: 'opened.png' });
  await expect(opened).toHaveAttribute('data-status', 'done', { timeout: TIMEOUT });
  await opened.locator('.job-button').click();
  expect(await page.locator('#lines .line .text').allTextContents()).toEqual((await native).lines.map((l) => l.text));
});
