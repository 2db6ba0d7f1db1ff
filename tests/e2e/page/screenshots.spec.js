// The screenshot set of the page, one PNG per state, into test-artefacts/ (looked at by people, light and dark):
// first load, ready (empty), a queue with a failure, a result, the result on a phone, the result in dark mode.
// Each state is asserted before it is taken, so a screenshot never shows a state the page did not reach.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTEFACTS, DATA, expect, test } from '../product_fixtures.js';

const BOOT_TIMEOUT = 3 * 60_000;
const OCR_TIMEOUT = 6 * 60_000;
const shot = (page, name, opts = {}) => page.screenshot({ path: join(ARTEFACTS, `screen-${name}.png`), ...opts });

test('screenshots: first load, ready, queue with a failure, result, phone, dark', async ({ app, servers }) => {
  const { page, context } = app;
  await page.setViewportSize({ width: 1366, height: 900 });
  // First load: the OCR models are held back until the loading phase has been photographed.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await context.route('**/assets/models/**', async (route) => { await held; await route.continue(); });
  await page.goto(servers.isolated);
  await expect(page.locator('#loading')).toBeVisible();
  await expect(page.locator('#loading-text')).toContainText(/MB/, { timeout: BOOT_TIMEOUT });
  await shot(page, '1-first-load');
  release();

  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });
  await expect(page.locator('#queue .job')).toHaveCount(0);
  await shot(page, '2-ready');

  // A file that is not an image, then a good one: the queue shows the failure, the failed one's error is open.
  await page.locator('#pick-files').setInputFiles([
    { name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('these are notes, not an image\n') },
    { name: 'baiona.png', mimeType: 'image/png', buffer: readFileSync(join(DATA, 'baiona.png')) },
  ]);
  const good = page.locator('#queue .job', { hasText: 'baiona.png' });
  await expect(good).toHaveAttribute('data-status', 'done', { timeout: OCR_TIMEOUT });
  const bad = page.locator('#queue .job', { hasText: 'notes.png' });
  await expect(bad).toHaveAttribute('data-status', 'failed');
  await bad.locator('.job-button').click();
  await expect(page.locator('#result-status .error')).toBeVisible();
  await shot(page, '3-queue-with-failure');

  // The result, with one line selected (its box marked) and another focused from the keyboard.
  await good.locator('.job-button').click();
  const lines = page.locator('#lines [role=option]');
  await expect(lines.first()).toBeVisible();
  await lines.nth(1).click();
  await page.keyboard.press('ArrowDown');
  await expect(lines.nth(2)).toBeFocused();
  await shot(page, '4-result');

  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, '5-phone-result', { fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, '6-phone-result-dark', { fullPage: true });
  await page.setViewportSize({ width: 1366, height: 900 });
  await shot(page, '6-result-dark');
});
