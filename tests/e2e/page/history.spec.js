// History across reloads (IndexedDB, web/src/ui/history.js): finished results come back after a reload and
// equal what was shown (and the native CLI's text); images are stored only when "Keep images in history" is
// ticked; an item that was not finished comes back with Retry only if its bytes were kept, else it is dropped
// with a note; Remove and Clear history empty the store, read here directly through indexedDB.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTEFACTS, DATA, expect, nativeResult, test } from '../product_fixtures.js';

const BOOT_TIMEOUT = 3 * 60_000;
const OCR_TIMEOUT = 3 * 60_000;

/** The stored records as the page left them: name, status, whether the image bytes are there, the line texts. */
function storedRecords(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('retto-history');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const get = db.transaction('items').objectStore('items').getAll();
      get.onsuccess = () => {
        db.close();
        resolve(get.result.sort((a, b) => a.added - b.added).map((r) => ({ name: r.name, status: r.status,
          hasFile: r.file instanceof Blob, lines: r.result?.lines?.map((l) => l.text) ?? null })));
      };
      get.onerror = () => reject(get.error);
    };
  }));
}

test('history: results survive a reload, images only when chosen, unfinished items, remove, clear history', async ({ app, servers }) => {
  const { page } = app;
  const nativeGray = nativeResult(join(DATA, 'baiona_gray.png'));
  const nativeBaiona = nativeResult(join(DATA, 'baiona.png'));
  const file = (name) => ({ name, mimeType: 'image/png', buffer: readFileSync(join(DATA, name)) });
  const row = (name) => page.locator('#queue .job', { hasText: name });
  const shownLines = () => page.locator('#lines .line .text').allTextContents();
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto(servers.isolated);
  await expect(page.locator('#engine')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });
  await expect(page.locator('#keep-images')).not.toBeChecked(); // images are not kept unless asked

  // 1. Without keeping images: one result, and one image still running when the page is reloaded.
  await page.locator('#pick-files').setInputFiles([file('baiona_gray.png')]);
  await expect(row('baiona_gray.png')).toHaveAttribute('data-status', 'done', { timeout: OCR_TIMEOUT });
  const before = await shownLines();
  expect(before).toEqual((await nativeGray).lines.map((l) => l.text));
  await page.locator('#pick-files').setInputFiles([file('linn.png')]);
  await expect.poll(() => storedRecords(page)).toEqual([
    { name: 'baiona_gray.png', status: 'done', hasFile: false, lines: before },
    { name: 'linn.png', status: 'pending', hasFile: false, lines: null },
  ]);
  await page.reload();
  // The result is back as it was shown, text only (no picture, said so); linn.png is dropped with a note.
  await expect(row('baiona_gray.png')).toHaveAttribute('data-status', 'done');
  await expect(row('linn.png')).toHaveCount(0);
  await expect(page.locator('#notice')).toContainText('linn.png was not finished when the page was closed');
  await expect(page.locator('#result-title')).toHaveText('baiona_gray.png');
  expect(await shownLines()).toEqual(before);
  await expect(page.locator('#figure img')).toHaveCount(0);
  await expect(page.locator('#figure .no-picture-note')).toContainText('the image was not kept');
  await expect(page.locator('#download-pdf')).toBeDisabled(); // a searchable PDF needs the picture
  await page.screenshot({ path: join(ARTEFACTS, 'history-text-only.png') });
  await expect.poll(() => storedRecords(page)).toEqual([{ name: 'baiona_gray.png', status: 'done', hasFile: false, lines: before }]);

  // 2. Keeping images: a result with its picture, and an unfinished image that comes back with Retry.
  await page.locator('#keep-images').check();
  await page.locator('#pick-files').setInputFiles([file('baiona.png')]);
  await expect(row('baiona.png')).toHaveAttribute('data-status', 'done', { timeout: OCR_TIMEOUT });
  await row('baiona.png').locator('.job-button').click();
  const baionaLines = await shownLines();
  expect(baionaLines).toEqual((await nativeBaiona).lines.map((l) => l.text));
  await page.locator('#pick-files').setInputFiles([file('linn.png')]);
  await expect.poll(async () => (await storedRecords(page)).map((r) => [r.name, r.status, r.hasFile])).toEqual([
    ['baiona_gray.png', 'done', false], ['baiona.png', 'done', true], ['linn.png', 'pending', true]]);
  await page.reload();
  await expect(row('linn.png')).toHaveAttribute('data-status', 'unfinished');
  await expect(row('linn.png').locator('.chip')).toHaveText('Not finished');
  await expect(page.getByRole('button', { name: 'Retry linn.png' })).toBeVisible();
  await expect(page.locator('#result-title')).toHaveText('baiona.png'); // the latest result is shown
  expect(await shownLines()).toEqual(baionaLines);
  await expect(page.locator('#figure img')).toHaveCount(1);
  await expect(page.locator('#figure polygon')).toHaveCount(baionaLines.length);
  expect(await page.locator('#figure img').evaluate((img) => img.complete && img.naturalWidth))
    .toBe((await nativeBaiona).image.width);
  await expect(page.locator('#keep-images')).toBeChecked(); // the choice is remembered

  // Remove takes an item out of the store; Clear history empties it (and the restored items leave the queue).
  await page.getByRole('button', { name: 'Remove linn.png' }).click();
  await expect.poll(async () => (await storedRecords(page)).map((r) => r.name)).toEqual(['baiona_gray.png', 'baiona.png']);
  await page.locator('#clear-history').click();
  await expect(page.locator('#queue .job')).toHaveCount(0);
  await expect.poll(() => storedRecords(page)).toEqual([]);
  await page.reload();
  await expect(page.locator('#queue-empty')).toBeVisible();
  expect(await storedRecords(page)).toEqual([]);
});

/** `png` with a 4 MB private ancillary chunk of random bytes after IHDR: decoders skip it (the pixels are the same
 *  image), but storing the file takes 4 MB. */
function withBallast(png, bytes = 4 << 20) {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const body = Buffer.concat([Buffer.from('prVt'), randomBytes(bytes)]);
  const len = Buffer.alloc(4); len.writeUInt32BE(bytes);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body));
  const afterIhdr = 8 + 8 + 13 + 4;
  return Buffer.concat([png.subarray(0, afterIhdr), len, body, crc, png.subarray(afterIhdr)]);
}

test('history: when storage has room for the text but not the image, the finished text is kept, without it', async ({ app, servers }) => {
  const { page, context } = app;
  await page.goto(servers.isolated);
  const origin = new URL(servers.isolated).origin;
  const cdp = await context.newCDPSession(page);
  await page.locator('#keep-images').check();
  // Room for a result's text but not for its 4 MB image: Chromium's own quota for this origin (DevTools
  // protocol), 1 MB above what the origin already uses. The finished item must be stored as done, text only
  // (not left as the pending record with its image, which would come back as unfinished). Measured once the
  // service worker's offline copy is saved: its first-visit precache would otherwise fill the 1 MB left (it
  // did, to within 4 KB, once the set files changed).
  await expect(page.locator('#offline-status')).toHaveAttribute('data-state', 'ready', { timeout: BOOT_TIMEOUT });
  const used = await page.evaluate(async () => (await navigator.storage.estimate()).usage);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: used + (1 << 20) });
  const big = join(mkdtempSync(join(tmpdir(), 'retto-quota-')), 'baiona_ballast.png');
  writeFileSync(big, withBallast(readFileSync(join(DATA, 'baiona.png'))));
  await page.locator('#pick-files').setInputFiles(big);
  await expect(page.locator('#queue .job', { hasText: 'baiona_ballast.png' })).toHaveAttribute('data-status', 'done', { timeout: BOOT_TIMEOUT });
  await expect(page.locator('#notice')).toHaveText(/Storage is full: baiona_ballast\.png's text is kept in history, its image is not\. OCR goes on/);
  const want = (await nativeResult(join(DATA, 'baiona.png'))).lines.map((l) => l.text);
  // Polled: the notice can come from the pending record's save (it too was stored without its image), and the
  // finished record's own save (delete, then put text-only) may still be under way when the row says done.
  await expect.poll(() => storedRecords(page)).toEqual([{ name: 'baiona_ballast.png', status: 'done', hasFile: false, lines: want }]);
});

test('history: when storage is full the page says so and OCR goes on', async ({ app, servers }) => {
  const { page, context } = app;
  await page.goto(servers.isolated);
  // A real full store: Chromium's own quota for this origin, set below what it already uses (DevTools protocol).
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(servers.isolated).origin, quotaSize: 1 });
  await page.locator('#keep-images').check();
  await page.locator('#pick-files').setInputFiles(join(DATA, 'baiona_gray.png'));
  await expect(page.locator('#notice')).toHaveText(/Storage is full: baiona_gray\.png is not kept in history\. OCR goes on/,
    { timeout: BOOT_TIMEOUT });
  await expect(page.locator('#queue .job', { hasText: 'baiona_gray.png' })).toHaveAttribute('data-status', 'done', { timeout: BOOT_TIMEOUT });
  await expect(page.locator('#lines .line')).toHaveCount((await nativeResult(join(DATA, 'baiona_gray.png'))).lines.length);
  expect(await storedRecords(page)).toEqual([]);
});
