// The first load, as a person sees it: the phases in words (bytes while downloading, then the start-up steps),
// a load band that keeps its height so nothing below moves when the engine is ready, and an image added before
// that waits in the queue, saying so, then is read (compared with the native CLI).
import { join } from 'node:path';
import { DATA, expect, nativeResult, test } from '../product_fixtures.js';

const BOOT_TIMEOUT = 3 * 60_000;

function recorder() {
  window.__loadingTexts = [];
  new MutationObserver(() => {
    const t = document.getElementById('loading-text')?.textContent;
    if (t && window.__loadingTexts.at(-1) !== t) window.__loadingTexts.push(t);
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

test('first load: phases in words, no jump when ready, an image added meanwhile waits then is read', async ({ app, servers }) => {
  const { page, context } = app;
  const native = nativeResult(join(DATA, 'baiona.png'));
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.addInitScript(recorder);
  // The models are held back until the waiting state has been checked, so "before ready" is certain.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await context.route('**/assets/models/**', async (route) => { await held; await route.continue(); });
  await page.goto(servers.isolated);
  await expect(page.locator('#loading-text')).toContainText(/MB of/, { timeout: BOOT_TIMEOUT });
  await page.locator('#pick-files').setInputFiles(join(DATA, 'baiona.png'));
  const row = page.locator('#queue .job', { hasText: 'baiona.png' });
  await expect(row).toHaveAttribute('data-status', /waiting|detecting/);
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'loading');
  // The row says why it does not start (app.css, while the engine loads); the band counts what waits.
  await expect.poll(() => row.locator('.job-detail').evaluate((el) => getComputedStyle(el, '::before').content))
    .toMatch(/Waits for the OCR engine/);
  await expect(page.locator('#loading-text')).toContainText('1 file will be read once it is ready');
  // Measured with the row and its notice in place: what follows may only change because loading ends.
  const before = {
    dropzone: (await page.locator('#dropzone').boundingBox()).y,
    queue: (await page.locator('#queue-title').boundingBox()).y,
    band: (await page.locator('#loading').boundingBox()).height,
  };

  release();

  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });
  await expect(page.locator('#loading-text')).toHaveText(/^OCR engine ready in \d+\.\d s\.$/);
  const seen = await page.evaluate(() => window.__loadingTexts);
  expect(seen.some((t) => /^Downloading the OCR engine.*… \d+\.\d MB of \d+\.\d MB/.test(t)), seen.join('\n')).toBe(true);
  expect(seen.some((t) => /^Starting the OCR engine.*: (loading the models|starting the reader)… \(step [1-7] of 7\)/.test(t)),
    seen.join('\n')).toBe(true);
  const after = {
    dropzone: (await page.locator('#dropzone').boundingBox()).y,
    queue: (await page.locator('#queue-title').boundingBox()).y,
    band: (await page.locator('#loading').boundingBox()).height,
  };
  expect(after).toEqual(before); // nothing jumped when loading ended

  await expect(row).toHaveAttribute('data-status', 'done', { timeout: BOOT_TIMEOUT });
  await expect.poll(() => row.locator('.job-detail').evaluate((el) => getComputedStyle(el, '::before').content)).toBe('none');
  expect(await page.locator('#lines .line .text').allTextContents()).toEqual((await native).lines.map((l) => l.text));
});
