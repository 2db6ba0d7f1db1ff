// The page's queue under the person's control: a file that is not an image or PDF is turned away at once; a
// running job is cancelled (the others go on); retry, remove, clear all; All TXT says what it left out; the
// per-item controls are named with the file, work from the keyboard and are usable at phone size.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTEFACTS, DATA, expect, test } from '../product_fixtures.js';
import { runNative } from '../fixtures.js';

const BOOT_TIMEOUT = 3 * 60_000;
const OCR_TIMEOUT = 3 * 60_000;

test('queue: reject, cancel a running job, retry, remove, clear all, All TXT left-out note, phone controls', async ({ app, servers }) => {
  const { page } = app;
  // The CLI's text for the one file that will be read (the reference for All TXT).
  const cliText = runNative(['-m', 'retto', '--images', 'baiona_gray.png', '--format', 'text', '--no-progress'], { cwd: DATA });
  const badBytes = Buffer.from('not a picture at all\n');
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto(servers.isolated);
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });

  const row = (name) => page.locator('#queue .job', { hasText: name });
  const file = (name) => ({ name, mimeType: 'image/png', buffer: readFileSync(join(DATA, name)) });
  // linn.png (large-ish) starts at once; notes.txt is turned away by name and type before it ever queues.
  await page.locator('#pick-files').setInputFiles([file('linn.png'),
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('shopping list\n') },
    file('baiona_gray.png'), { name: 'broken.png', mimeType: 'image/png', buffer: badBytes }]);
  await expect(page.locator('#notice')).toHaveText('notes.txt was not added: not an image or PDF. Added 3 files.');
  await expect(page.locator('#queue .job')).toHaveCount(3);
  await expect(row('notes.txt')).toHaveCount(0);

  // Cancel the running job from the keyboard: it says Cancelled (and stays so: the key press that cancelled it
  // does not also retry it), focus moves to its row, the others go on.
  await expect(row('linn.png')).toHaveAttribute('data-status', /detecting|reading/);
  await page.getByRole('button', { name: 'Cancel linn.png' }).focus();
  await page.keyboard.press('Enter');
  await expect(row('linn.png')).toHaveAttribute('data-status', 'cancelled');
  await expect(row('linn.png').locator('.chip')).toHaveText('Cancelled');
  await expect(row('linn.png').locator('.job-button')).toBeFocused();
  await expect(row('baiona_gray.png')).toHaveAttribute('data-status', 'done', { timeout: OCR_TIMEOUT });
  await expect(row('broken.png')).toHaveAttribute('data-status', 'failed', { timeout: OCR_TIMEOUT });
  // Each control exists only where it applies.
  await expect(page.getByRole('button', { name: 'Cancel baiona_gray.png' })).toBeHidden();
  await expect(page.getByRole('button', { name: 'Retry baiona_gray.png' })).toBeHidden();
  await expect(page.getByRole('button', { name: 'Retry broken.png' })).toBeVisible();
  await expect(row('linn.png')).toHaveAttribute('data-status', 'cancelled');

  // All TXT: the CLI's text of what was read, and a note naming what it left out and why.
  const [d] = await Promise.all([page.waitForEvent('download'), page.locator('#download-all-txt').click()]);
  expect(readFileSync(await d.path(), 'utf8')).toBe(await cliText);
  await expect(page.locator('#notice')).toContainText('All TXT: left out 2 files');
  await expect(page.locator('#notice')).toContainText('linn.png (cancelled)');
  await expect(page.locator('#notice')).toContainText(/broken\.png \([a-z_]+\)/);
  await page.screenshot({ path: join(ARTEFACTS, 'queue-desktop-controls.png') });

  // Retry a failed job: it runs again (and fails again, for the same reason).
  await page.getByRole('button', { name: 'Retry broken.png' }).click();
  await expect(row('broken.png')).toHaveAttribute('data-status', 'failed', { timeout: OCR_TIMEOUT });
  // Retry the cancelled one, then remove it while it runs: it is gone, focus moves to the row now in its place.
  await page.getByRole('button', { name: 'Retry linn.png' }).click();
  await expect(row('linn.png')).toHaveAttribute('data-status', /detecting|reading/);
  await page.getByRole('button', { name: 'Remove linn.png' }).focus();
  await page.keyboard.press('Enter');
  await expect(row('linn.png')).toHaveCount(0);
  await expect(page.locator(':focus')).toHaveAttribute('aria-label', 'Remove baiona_gray.png');

  // Clear all takes everything, the waiting and running ones too; the engine goes on with what comes next.
  await page.locator('#pick-files').setInputFiles([file('linn.png'), file('baiona.png')]);
  await expect(row('linn.png')).toHaveAttribute('data-status', /detecting|reading/);
  await page.locator('#clear-queue').click();
  await expect(page.locator('#queue .job')).toHaveCount(0);
  await expect(page.locator('#queue-empty')).toBeVisible();
  await expect(page.locator('#result-body')).toBeHidden();
  await expect(page.locator(':focus')).toHaveId('queue-title');
  await page.locator('#pick-files').setInputFiles([file('baiona_gray.png')]);
  await expect(row('baiona_gray.png')).toHaveAttribute('data-status', 'done', { timeout: OCR_TIMEOUT });

  // Phone size: the row's controls are finger-sized, inside the screen, and work.
  await page.setViewportSize({ width: 390, height: 844 });
  const remove = page.getByRole('button', { name: 'Remove baiona_gray.png' });
  const box = await remove.boundingBox();
  expect(box.width).toBeGreaterThanOrEqual(44);
  expect(box.height).toBeGreaterThanOrEqual(44);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await page.screenshot({ path: join(ARTEFACTS, 'queue-phone-controls.png'), fullPage: true });
  await remove.click();
  await expect(page.locator('#queue .job')).toHaveCount(0);
});
